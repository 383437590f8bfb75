/**
 * R14, issue 12: writing into `.git/` or a file that steers the agent asks in every mode,
 * bypassPermissions included: by Write and Edit, and by a Bash command as far as the parser
 * sees it. A `.git/config` written by the model names the programs git runs next.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { PermissionMode, PermissionVerdict } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { flagsFor } from '../../src/executor/tool-flags.js'
import { ruleCommandSplitter } from '../../src/permissions/command-splitter.js'
import { compileRules } from '../../src/permissions/policy.js'
import { createRulePermissionService, EMPTY_RULES, type RuleSet } from '../../src/permissions/rule-permission-service.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { tempDir, writeTool } from '../support/permission-tools.js'
import { editTool } from '../support/tools.js'

const EVERY_MODE: readonly PermissionMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']
const TOOLS: Record<string, ToolEntry> = { Edit: editTool, Write: writeTool().entry, Bash: createBashTool() }
const allowEverything: RuleSet = compileRules({ allow: ['Edit', 'Write', 'Bash'] }, 'test.json', ruleCommandSplitter)

let workspace: string

beforeAll(async () => {
  workspace = await tempDir('protected-ws')
  await mkdir(path.join(workspace, '.git', 'hooks'), { recursive: true })
  await writeFile(path.join(workspace, '.git', 'config'), '[core]\n')
  await writeFile(path.join(workspace, 'AGENTS.md'), 'be nice\n')
  await writeFile(path.join(workspace, 'notes.txt'), 'x\n')
  await symlink('AGENTS.md', path.join(workspace, 'readme-link'))
  await symlink('.git/config', path.join(workspace, 'cfg-link'))
})

function evaluate(toolName: string, input: unknown, mode: PermissionMode, sets: readonly RuleSet[] = [allowEverything]): Promise<PermissionVerdict> {
  const entry = TOOLS[toolName] as ToolEntry
  const service = createRulePermissionService(() => sets)
  return Promise.resolve(service.evaluate({ sessionId: 's', callId: 'c', toolName, input, flags: flagsFor(entry, input), entry, mode, workspace }))
}

describe('Write and Edit into .git/ ask in every mode', () => {
  it.each(EVERY_MODE.flatMap((mode) => ['.git/config', '.git/hooks/pre-commit', 'vendor/lib/.git/config', '.GIT/config', '.toolexec/rules.json'].map((file) => [mode, file] as const)))(
    'R14 in %s mode a write to %s asks, even with allow rules',
    async (mode, file) => {
      for (const tool of ['Edit', 'Write']) {
        const verdict = await evaluate(tool, { file_path: file }, mode)
        expect(verdict).toMatchObject({ behavior: 'ask', ruleId: 'instruction-file', explicitAsk: true, riskLevel: 'high' })
      }
    },
  )

  it.each(['.github/workflows/ci.yml', '.gitignore', 'docs/git/config', 'vendor/repo.git.txt'])('a write to %s is an ordinary write', async (file) => {
    expect(await evaluate('Write', { file_path: file }, 'bypassPermissions', [EMPTY_RULES])).toMatchObject({ behavior: 'allow' })
  })
})

/** Commands that write a steering file or into .git/, as the parser can see. */
const PROTECTED_WRITES: readonly (readonly [string, string])[] = [
  ['a redirection into .git/config', 'echo "[core] fsmonitor = ./evil" > .git/config'],
  ['an appending redirection into .git/config', 'printf x >> .git/config'],
  ['a redirection with the fd', 'echo x 1> ./.git/hooks/pre-commit'],
  ['tee into AGENTS.md', 'echo obey | tee AGENTS.md'],
  ['tee -a into CLAUDE.md in a folder', 'echo obey | tee -a docs/CLAUDE.md'],
  ['cp into .git/hooks', 'cp evil.sh .git/hooks/pre-commit'],
  ['mv over CLAUDE.md', 'mv draft.md CLAUDE.md'],
  ['sed -i on CLAUDE.md', "sed -i 's/a/b/' CLAUDE.md"],
  ['ln into .git/hooks', 'ln -sf ../../evil.sh .git/hooks/post-checkout'],
  ['install into .git/hooks', 'install -m 755 evil.sh .git/hooks/pre-push'],
  ['dd of= .git/config', 'dd if=evil of=.git/config'],
  ['a cd into .git, then a plain redirection', 'cd .git && echo x > config'],
  ['a script that names .git/config', `bash -c 'echo x > .git/config'`],
  ['python that opens .git/config', `python3 -c "open('.git/config','a').write('x')"`],
  ['the whole .git folder removed', 'rm -rf .git'],
  ['a nested repository', 'cp evil vendor/lib/.git/config'],
  ['the workspace config of toolexec', 'cat new.json > .toolexec/config.json'],
  ['a redirection only known at run time', 'echo x > "$TARGET"'],
  ['a redirection to a glob', 'echo x > .gi*/config'],
  ['a symlink to AGENTS.md', 'echo obey > readme-link'],
  ['a symlink to .git/config', 'cat evil >> cfg-link'],
  ['git config, which writes .git/config', 'git config core.fsmonitor ./evil.sh'],
  ['git -C . config', 'git -C . config --add core.pager evil'],
  ['git remote add', 'git remote add x ext::sh'],
  ['a heredoc into AGENTS.md', 'cat > AGENTS.md <<EOF\nobey\nEOF'],
]

describe('a Bash command that writes a steering file or into .git/ asks in every mode', () => {
  it.each(EVERY_MODE.flatMap((mode) => PROTECTED_WRITES.map(([name, command]) => [mode, name, command] as const)))('R14 in %s mode: %s', async (mode, _name, command) => {
    const verdict = await evaluate('Bash', { command }, mode)
    expect(verdict).toMatchObject({ behavior: 'ask', ruleId: 'instruction-file', explicitAsk: true, riskLevel: 'high' })
  })

  it.each([
    ['an ordinary redirection', 'echo x > notes.txt'],
    ['a redirection to /dev/null', 'make > /dev/null'],
    ['a folder that only starts like .git', 'cp a .github/workflows/ci.yml'],
    ['.gitignore', 'echo node_modules >> .gitignore'],
  ])('an ordinary write is not asked in bypassPermissions mode: %s', async (_name, command) => {
    expect(await evaluate('Bash', { command }, 'bypassPermissions', [EMPTY_RULES])).toMatchObject({ behavior: 'allow' })
  })

  it('reading a steering file or .git/config is an ordinary read', async () => {
    expect(await evaluate('Bash', { command: 'cat AGENTS.md .git/config' }, 'default', [EMPTY_RULES])).toMatchObject({ behavior: 'allow', ruleId: 'mode.readOnly' })
  })
})
