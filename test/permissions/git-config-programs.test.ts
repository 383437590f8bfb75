/**
 * Issue 12: a read-only git command that would run unasked asks when the repository's own
 * config names a program no override can stop; the user's global config is not the
 * repository's; an allow rule runs it (with the overrides only); dontAsk denies it.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { PermissionMode, PermissionVerdict } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { flagsFor } from '../../src/executor/tool-flags.js'
import { ruleCommandSplitter } from '../../src/permissions/command-splitter.js'
import { gitConfigProgramsProblem } from '../../src/permissions/git-config-programs.js'
import { compileRules } from '../../src/permissions/policy.js'
import { createRulePermissionService, EMPTY_RULES, type RuleSet } from '../../src/permissions/rule-permission-service.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { tempDir } from '../support/permission-tools.js'

const bash = createBashTool() as unknown as ToolEntry
let workspace: string
let clean: string

function initRepo(dir: string, config: string): void {
  mkdirSync(dir, { recursive: true })
  spawnSync('git', ['init', '-q', dir])
  writeFileSync(path.join(dir, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n${config}\n`)
}

beforeAll(async () => {
  workspace = await tempDir('git-programs-ws')
  initRepo(workspace, '[diff "x"]\n\ttextconv = /tmp/evil')
  clean = await tempDir('git-programs-clean')
  initRepo(clean, '[core]\n\tfsmonitor = /tmp/evil')
  initRepo(path.join(clean, 'sub'), '[filter "lfs"]\n\tclean = /tmp/evil')
})

function evaluate(command: string, mode: PermissionMode, dir: string, sets: readonly RuleSet[] = [EMPTY_RULES]): Promise<PermissionVerdict> {
  const input = { command }
  const service = createRulePermissionService(() => sets)
  return Promise.resolve(service.evaluate({ sessionId: 's', callId: 'c', toolName: 'Bash', input, flags: flagsFor(bash, input), entry: bash, mode, workspace: dir }))
}

describe('read-only git and the programs of the repository config', () => {
  it.each<[PermissionMode, PermissionVerdict['behavior']]>([
    ['default', 'ask'],
    ['acceptEdits', 'ask'],
    ['plan', 'ask'],
    ['dontAsk', 'deny'],
  ])('in %s mode a textconv makes git diff %s', async (mode, behavior) => {
    const verdict = await evaluate('git diff', mode, workspace)
    expect(verdict).toMatchObject({ behavior, ruleId: 'git.config' })
    expect(verdict.reason).toContain('diff.x.textconv')
  })

  it('an allow rule runs it: the person chose to trust this command', async () => {
    const rules = compileRules({ allow: ['Bash(git diff)'] }, 'test.json', ruleCommandSplitter)
    expect(await evaluate('git diff', 'default', workspace, [rules])).toMatchObject({ behavior: 'allow', ruleId: 'Bash(git diff)' })
  })

  it('core.fsmonitor alone is overridden, not asked', async () => {
    expect(await evaluate('git status', 'default', clean)).toMatchObject({ behavior: 'allow', ruleId: 'mode.readOnly' })
  })

  it.each(['cd sub && git status', 'git -C sub status', 'git --git-dir=sub/.git status', 'ls; cd sub; git log'])('a nested repository with a filter: %s asks', async (command) => {
    expect(await evaluate(command, 'default', clean)).toMatchObject({ behavior: 'ask', ruleId: 'git.config' })
  })

  it('git after a cd known only at run time asks', async () => {
    expect(await gitConfigProgramsProblem('cd "$DIR" && git status', clean)).toMatch(/only known when it runs/)
  })

  it('a command without git reads no config', async () => {
    expect(await gitConfigProgramsProblem('cat a.txt', workspace)).toBeUndefined()
  })
})
