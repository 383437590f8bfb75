import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { PermissionMode, PermissionVerdict } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { flagsFor } from '../../src/executor/tool-flags.js'
import { ruleCommandSplitter } from '../../src/permissions/command-splitter.js'
import { compileRules, ruleSource, workspaceRules } from '../../src/permissions/policy.js'
import { compileRule } from '../../src/permissions/rule-matcher.js'
import { narrowestRule } from '../../src/permissions/narrowest-rule.js'
import { createRulePermissionService, EMPTY_RULES, type RuleSet } from '../../src/permissions/rule-permission-service.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { noteTool, tempDir, writeTool } from '../support/permission-tools.js'
import { ruleRequest } from '../support/rule-requests.js'
import { editTool, readTool } from '../support/tools.js'

const WORKSPACE = '/work/project'
const MODES: readonly PermissionMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']
const TOOLS: Record<string, ToolEntry> = {
  Read: readTool,
  Edit: editTool,
  Write: writeTool().entry,
  Bash: createBashTool(),
  WebFetch: noteTool('WebFetch', 'network', { accessTarget: (input) => ({ kind: 'url', url: (input as { url: string }).url }) }).entry,
}

const rules = (config: { allow?: string[]; ask?: string[]; deny?: string[] }): RuleSet => compileRules(config, 'test.json', ruleCommandSplitter)

function evaluate(sets: readonly RuleSet[], toolName: string, input: unknown, mode: PermissionMode = 'default', workspace = WORKSPACE): Promise<PermissionVerdict> {
  const entry = TOOLS[toolName] as ToolEntry
  const service = createRulePermissionService(() => sets)
  return Promise.resolve(service.evaluate({ sessionId: 's', callId: 'c', toolName, input, flags: flagsFor(entry, input), entry, mode, workspace }))
}

describe('the rule permission service: order', () => {
  const server = rules({
    deny: ['Bash(rm *)', 'Edit(secrets/**)'],
    ask: ['Bash(git push *)', 'Bash(rm -i *)'],
    allow: ['Bash(git *)', 'Bash(rm *)', 'Edit(src/**)', 'Edit(secrets/**)', 'Edit'],
  })

  it.each<[string, string, Record<string, unknown>, PermissionVerdict['behavior'], string]>([
    ['deny beats an allow of the same command', 'Bash', { command: 'rm -rf build' }, 'deny', 'Bash(rm *)'],
    ['deny beats an ask of the same command', 'Bash', { command: 'rm -i x' }, 'deny', 'Bash(rm *)'],
    ['ask beats an allow of the same command', 'Bash', { command: 'git push origin main' }, 'ask', 'Bash(git push *)'],
    ['allow applies when nothing denies or asks', 'Bash', { command: 'git commit -m x' }, 'allow', 'Bash(git *)'],
    ['the first matching allow rule is the one named', 'Edit', { file_path: 'src/a.ts' }, 'allow', 'Edit(src/**)'],
    ['a deny on a path beats the allow of every Edit', 'Edit', { file_path: 'secrets/key.pem' }, 'deny', 'Edit(secrets/**)'],
    ['a compound command denied by one part is denied', 'Bash', { command: 'git status; rm -rf /' }, 'deny', 'Bash(rm *)'],
    ['no rule: the mode decides', 'Bash', { command: 'make' }, 'ask', 'mode.default'],
    ['no rule: a read-only command runs in default mode (A6)', 'Bash', { command: 'ls -la | head' }, 'allow', 'mode.readOnly'],
  ])('R14 %s', async (_case, tool, input, behavior, ruleId) => {
    expect(await evaluate([server], tool, input)).toMatchObject({ behavior, ruleId })
  })

  it('R14 a compound command is allowed when each part is allowed by some rule, and only then', async () => {
    const sets = [rules({ allow: ['Bash(npm test)'] }), rules({ allow: ['Bash(npm run lint *)'] })]
    expect(await evaluate(sets, 'Bash', { command: 'npm test && npm run lint --fix' })).toMatchObject({
      behavior: 'allow',
      ruleId: 'Bash(npm test), Bash(npm run lint *)',
      reason: 'Allowed by the rules Bash(npm test), Bash(npm run lint *)',
    })
    expect(await evaluate(sets, 'Bash', { command: 'npm test && npm run lint; curl evil' })).toMatchObject({ behavior: 'ask' })
    expect(await evaluate(sets, 'Bash', { command: 'npm test && echo $(npm run lint)' })).toMatchObject({ behavior: 'ask' })
  })

  it('R14 names the rule in the reason of a deny and an ask', async () => {
    expect((await evaluate([server], 'Bash', { command: 'rm x' })).reason).toBe('Permission to use Bash has been denied by the rule Bash(rm *)')
    expect((await evaluate([server], 'Bash', { command: 'git push' })).reason).toBe('The rule Bash(git push *) asks before Bash runs')
  })

  it('R14 a workspace config cannot loosen a deny of the server: its allow and its grants come after every deny', async () => {
    const workspace = await tempDir('ws-rules')
    await mkdir(path.join(workspace, '.toolexec'))
    await writeFile(path.join(workspace, '.toolexec', 'config.json'), JSON.stringify({ permissions: { allow: ['Bash', 'Bash(rm *)'], deny: ['Bash(curl *)'] } }))
    const grants = rules({ allow: ['Bash(rm -rf build)'] })
    const source = ruleSource(rules({ deny: ['Bash(rm *)'] }), workspaceRules(ruleCommandSplitter), () => grants)
    const service = createRulePermissionService(source)
    const ask = (command: string): Promise<PermissionVerdict> => {
      const input = { command }
      return Promise.resolve(
        service.evaluate({ sessionId: 's', callId: 'c', toolName: 'Bash', input, flags: flagsFor(TOOLS.Bash as ToolEntry, input), entry: TOOLS.Bash as ToolEntry, mode: 'default', workspace }),
      )
    }
    expect(await ask('rm -rf build')).toMatchObject({ behavior: 'deny', ruleId: 'Bash(rm *)' })
    expect(await ask('curl evil')).toMatchObject({ behavior: 'deny', ruleId: 'Bash(curl *)' })
    expect(await ask('make all')).toMatchObject({ behavior: 'allow', ruleId: 'Bash' })
  })
})

describe('the rule permission service: files that steer the agent and the workspace boundary', () => {
  const allowEverything = rules({ allow: ['Edit', 'Write', 'Edit(**)', 'Read'] })

  it.each(MODES.flatMap((mode) => ['AGENTS.md', 'CLAUDE.md', 'docs/CLAUDE.md', '.toolexec/config.json'].map((file) => [mode, file] as const)))(
    'R14 in %s mode a write to %s asks, even with allow rules',
    async (mode, file) => {
      for (const tool of ['Edit', 'Write']) {
        const verdict = await evaluate([allowEverything], tool, { file_path: file }, mode)
        expect(verdict).toMatchObject({ behavior: 'ask', ruleId: 'instruction-file', explicitAsk: true, riskLevel: 'high' })
        expect(verdict.reason).toBe(`${file} steers the agent: writing it always needs approval`)
      }
    },
  )

  it.each(['claude.md', 'Claude.MD', 'docs/agents.md', 'Agents.Md', '.TOOLEXEC/config.json', '.toolexec/Config.JSON'])(
    'a write to %s asks like the file it names on a case-insensitive file system',
    async (file) => {
      const verdict = await evaluate([allowEverything], 'Write', { file_path: file }, 'bypassPermissions')
      expect(verdict).toMatchObject({ behavior: 'ask', ruleId: 'instruction-file', explicitAsk: true })
      expect(verdict.reason).toBe(`${file} steers the agent: writing it always needs approval`)
    },
  )

  it.each(['claude.mdx', 'agents.md.bak', 'docs/.toolexec/config.json'])('a write to %s, another file, is an ordinary write', async (file) => {
    expect(await evaluate([allowEverything], 'Write', { file_path: file })).toMatchObject({ behavior: 'allow' })
  })

  it('R14 reading an instruction file is an ordinary read, and a deny rule still wins over the instruction-file ask', async () => {
    expect(await evaluate([EMPTY_RULES], 'Read', { file_path: 'AGENTS.md' })).toMatchObject({ behavior: 'allow' })
    expect(await evaluate([rules({ deny: ['Edit(AGENTS.md)'] })], 'Edit', { file_path: 'AGENTS.md' })).toMatchObject({ behavior: 'deny' })
  })

  it.each<[PermissionMode, PermissionVerdict['behavior'], string]>([
    ['default', 'ask', 'workspace.outside'],
    ['acceptEdits', 'ask', 'workspace.outside'],
    ['dontAsk', 'deny', 'workspace.outside'],
    ['bypassPermissions', 'allow', 'mode.bypassPermissions'],
  ])('R14 a path outside the workspace in %s mode: %s', async (mode, behavior, ruleId) => {
    const verdict = await evaluate([EMPTY_RULES], 'Edit', { file_path: '/etc/hosts' }, mode)
    expect(verdict).toMatchObject({ behavior, ruleId })
    if (behavior !== 'allow') expect(verdict.reason).toBe(`/etc/hosts is outside the workspace ${WORKSPACE}`)
    // Not an explicit ask: the memory-file rule (A9) may still lift it.
    expect(verdict.explicitAsk).toBeUndefined()
  })

  it('R14 an allow rule covers a path outside the workspace, and lets the call reach where it leads now', async () => {
    const verdict = await evaluate([rules({ allow: ['Read(/etc/**)'] })], 'Read', { file_path: '/etc/hosts' })
    expect(verdict).toMatchObject({ behavior: 'allow', ruleId: 'Read(/etc/**)', leadsTo: await realpath('/etc/hosts') })
  })
})

describe('the rule permission service: read-only Bash commands that name a path outside the workspace', () => {
  it.each<[string, string, string]>([
    ['an absolute path', 'cat /etc/passwd', '/etc/passwd'],
    ['a path that climbs out', 'ls -la ../other', '/work/other'],
    ['the parent folder', 'cd .. && ls', '/work'],
    ['a glob outside', 'head -n 3 /etc/*.conf', '/etc/*.conf'],
    ['the home folder', 'ls ~', os.homedir()],
    ['an option value', 'grep -r --exclude-from=/etc/shadow x .', '/etc/shadow'],
    ['an input redirection', 'wc -l < /etc/passwd', '/etc/passwd'],
    ['a value only known at run time', 'cat $HOME/.ssh/id_rsa', '$HOME/.ssh/id_rsa (only known when the command runs)'],
  ])('asks for %s, naming it, though the command only reads', async (_case, command, shown) => {
    const verdict = await evaluate([EMPTY_RULES], 'Bash', { command })
    expect(verdict).toMatchObject({ behavior: 'ask', ruleId: 'workspace.outside', riskLevel: 'high' })
    expect(verdict.reason).toBe(`${shown} is outside the workspace ${WORKSPACE}`)
  })

  it.each([['cat notes.txt src/a.ts'], ['ls -la | head -n 5'], ['grep -rn TODO src --include=*.ts'], ['head -c 16 /dev/urandom'], ['git log -n 3 origin/main']])(
    'lets %s run without asking',
    async (command) => {
      expect(await evaluate([EMPTY_RULES], 'Bash', { command })).toMatchObject({ behavior: 'allow', ruleId: 'mode.readOnly' })
    },
  )

  it.each<[string, string, string]>([
    ['a value attached to a short option', 'grep -f/etc/passwd x', '/etc/passwd'],
    ['a value attached after a cluster of flags', 'grep -rf/etc/passwd x', '/etc/passwd'],
    ['an attached value that climbs out', 'grep -f../secrets x', '/work/secrets'],
    ['an attached value in the home folder', 'grep -f~/.ssh/known_hosts x', path.join(os.homedir(), '.ssh/known_hosts')],
    ['an attached value only known at run time', 'grep -f$HOME/x y', '-f$HOME/x (only known when the command runs)'],
    ['an assignment inside a short option', 'grep -Dkey=/etc/passwd x', '/etc/passwd'],
    ['an attached output file of a command that writes', 'sort -o/tmp/out a', '/tmp/out'],
    ['a long option with its value after =', 'grep --file=/etc/passwd x', '/etc/passwd'],
    ['a path after --', 'cat -- /etc/hosts', '/etc/hosts'],
    ['a path after an option with an attached number', 'head -n1 /etc/hosts', '/etc/hosts'],
  ])('asks for %s, naming the path', async (_case, command, shown) => {
    const verdict = await evaluate([EMPTY_RULES], 'Bash', { command })
    expect(verdict).toMatchObject({ behavior: 'ask', ruleId: 'workspace.outside' })
    expect(verdict.reason).toBe(`${shown} is outside the workspace ${WORKSPACE}`)
  })

  it.each([
    ['grep -rn foo .'],
    ['head -n 5 notes.txt'],
    ['head -n5 notes.txt'],
    ['tail -n+2 notes.txt'],
    ['cut -d/ -f2 paths.txt'],
    ['sort -t/ -k2 paths.txt'],
    ['ls -I.git -la'],
    ['grep -f./patterns.txt src'],
    ['ls --color=auto'],
  ])('lets %s run without asking: its option values name nothing outside', async (command) => {
    expect(await evaluate([EMPTY_RULES], 'Bash', { command })).toMatchObject({ behavior: 'allow', ruleId: 'mode.readOnly' })
  })

  it('asks for a name inside that is a symlink leading out, naming where it leads', async () => {
    const workspace = await tempDir('bash-link')
    const outside = await tempDir('bash-outside')
    await symlink(outside, path.join(workspace, 'out-link'))
    const verdict = await evaluate([EMPTY_RULES], 'Bash', { command: 'cat out-link/secret.txt' }, 'default', workspace)
    expect(verdict).toMatchObject({ behavior: 'ask', ruleId: 'workspace.outside' })
    expect(verdict.reason).toContain(`(it leads to ${await realpath(outside)}${path.sep}secret.txt)`)
  })

  it('denies in dontAsk mode, runs in bypassPermissions mode, and yields to an allow rule', async () => {
    expect(await evaluate([EMPTY_RULES], 'Bash', { command: 'cat /etc/hosts' }, 'dontAsk')).toMatchObject({ behavior: 'deny', ruleId: 'workspace.outside' })
    expect(await evaluate([EMPTY_RULES], 'Bash', { command: 'cat /etc/hosts' }, 'bypassPermissions')).toMatchObject({ behavior: 'allow' })
    expect(await evaluate([rules({ allow: ['Bash(cat /etc/hosts)'] })], 'Bash', { command: 'cat /etc/hosts' })).toMatchObject({ behavior: 'allow', ruleId: 'Bash(cat /etc/hosts)' })
  })
})

describe('the rule permission service: modes over rules', () => {
  it('R14 plan mode denies changes even when an allow rule covers them, and keeps an ask rule explicit for memory files (A9)', async () => {
    expect(await evaluate([rules({ allow: ['Edit(src/**)'] })], 'Edit', { file_path: 'src/a.ts' }, 'plan')).toMatchObject({ behavior: 'deny', ruleId: 'mode.plan', modeDeny: true })
    const asked = await evaluate([rules({ ask: ['Edit(src/**)'] })], 'Edit', { file_path: 'src/a.ts' }, 'plan')
    expect(asked).toMatchObject({ behavior: 'deny', modeDeny: true, explicitAsk: true })
    expect(await evaluate([rules({ allow: ['Bash(make *)'] })], 'Bash', { command: 'make build' }, 'plan')).toMatchObject({ behavior: 'deny', ruleId: 'mode.plan' })
    expect(await evaluate([EMPTY_RULES], 'Bash', { command: 'git status' }, 'plan')).toMatchObject({ behavior: 'allow', ruleId: 'mode.readOnly' })
  })

  it('R14 dontAsk denies what an ask rule would have asked', async () => {
    const verdict = await evaluate([rules({ ask: ['Bash(git push *)'] })], 'Bash', { command: 'git push' }, 'dontAsk')
    expect(verdict).toMatchObject({ behavior: 'deny', ruleId: 'Bash(git push *)' })
    expect(verdict.reason).toContain('dontAsk mode denies what would ask')
  })

  it('R14 bypassPermissions runs what no rule names but still honours deny and ask rules', async () => {
    const sets = [rules({ deny: ['Bash(rm *)'], ask: ['Bash(git push *)'] })]
    expect(await evaluate(sets, 'Bash', { command: 'make deploy' }, 'bypassPermissions')).toMatchObject({ behavior: 'allow' })
    expect(await evaluate(sets, 'Bash', { command: 'rm -rf /' }, 'bypassPermissions')).toMatchObject({ behavior: 'deny' })
    expect(await evaluate(sets, 'Bash', { command: 'git push' }, 'bypassPermissions')).toMatchObject({ behavior: 'ask' })
  })
})

describe('narrowestRule: the grant an approval records', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['Bash', { command: '  npm   run test ' }, 'Bash(npm run test)'],
    ['Bash', { command: 'npm test && npm run lint' }, 'Bash(npm test && npm run lint)'],
    ['Bash', { command: 'rm *.log' }, 'Bash(rm \\*.log)'],
    ['WebFetch', { url: 'https://api.example.com/v1?q=1' }, 'WebFetch(domain:api.example.com)'],
    ['Edit', { file_path: 'src/a.ts' }, 'Edit(src/a.ts)'],
    ['Write', { file_path: `${WORKSPACE}/src/b.ts` }, 'Edit(src/b.ts)'],
    ['Edit', { file_path: 'notes/[draft] (1).md' }, 'Edit(notes/\\[draft\\] \\(1\\).md)'],
    ['Read', { file_path: '/etc/hosts' }, 'Read(/etc/hosts)'],
    ['Sleep', { ms: 1 }, 'Sleep'],
  ])('R14 for %s %j is %s', (toolName, input, expected) => {
    expect(narrowestRule(ruleRequest(toolName, input, WORKSPACE))).toBe(expected)
  })

  it('R14 the grant allows the very request it came from, and runs no other command', () => {
    const word = fc.constantFrom('rm', 'ls', '*', '*.log', '-rf', '/', '&&', ';', '|', '"a b"', "'x'", '$(id)', '\\', '\n', 'git', 'status')
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), fc.array(word, { minLength: 1, maxLength: 6 }), (words, others) => {
        const command = words.join(' ')
        fc.pre(command.trim().length > 0)
        const grant = compileRule(narrowestRule(ruleRequest('Bash', { command }, WORKSPACE)), 'allow', ruleCommandSplitter)
        expect(grant.matches(ruleRequest('Bash', { command }, WORKSPACE))).toBe(true)
        // Another line may still match when it runs only this command (`git ;`, `git && git`).
        const normalized = (text: string): string => text.trim().replace(/\s+/g, ' ')
        const other = others.join(' ')
        const onlyThis = normalized(other) === normalized(command) || (ruleCommandSplitter(other)?.every((part) => normalized(part) === normalized(command)) ?? false)
        if (!onlyThis) expect(grant.matches(ruleRequest('Bash', { command: other }, WORKSPACE))).toBe(false)
      }),
      { numRuns: 2_000 },
    )
  })

  it('R14 a path grant allows that file only, whatever characters its name has', () => {
    const name = fc.stringMatching(/^[a-z*?[\]{}()!+@ .-]{1,10}$/).filter((text) => text.trim() === text && !/^\.+$/.test(text))
    fc.assert(
      fc.property(name, name, (mine, theirs) => {
        const request = ruleRequest('Edit', { file_path: `src/${mine}` }, WORKSPACE)
        const grant = compileRule(narrowestRule(request), 'allow', ruleCommandSplitter)
        expect(grant.matches(request)).toBe(true)
        if (theirs !== mine) expect(grant.matches(ruleRequest('Edit', { file_path: `src/${theirs}` }, WORKSPACE))).toBe(false)
      }),
    )
  })

  it('R14 an ask carries the narrowest rule as its suggestion', async () => {
    expect(await evaluate([EMPTY_RULES], 'Bash', { command: 'make  all' })).toMatchObject({ behavior: 'ask', suggestedRule: 'Bash(make all)' })
    expect(await evaluate([rules({ ask: ['Edit'] })], 'Edit', { file_path: 'src/x.ts' })).toMatchObject({ behavior: 'ask', suggestedRule: 'Edit(src/x.ts)' })
  })
})
