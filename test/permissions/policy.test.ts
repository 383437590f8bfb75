import { execFileSync } from 'node:child_process'
import { symlinkSync, writeFileSync } from 'node:fs'
import { mkdir, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ruleCommandSplitter } from '../../src/permissions/command-splitter.js'
import { loadPolicy, MAX_WORKSPACE_CONFIG_BYTES, PolicyError, ruleSource, workspaceRules } from '../../src/permissions/policy.js'
import type { RuleSet } from '../../src/permissions/rule-permission-service.js'
import { ruleRequest } from '../support/rule-requests.js'
import { tempDir } from '../support/permission-tools.js'
import { tempDirSync } from '../support/temp-dirs.js'

const FILE = '/etc/toolexec/config.json'
const SECRET = 'SECRET-b41d not for the model'

/** A file outside every workspace holding text no reason may show. */
function secretFile(): string {
  const file = path.join(tempDirSync('outside'), 'secret.txt')
  writeFileSync(file, SECRET)
  return file
}

function refusal(config: Record<string, unknown>): PolicyError {
  try {
    loadPolicy(config, FILE, ruleCommandSplitter)
  } catch (error) {
    if (error instanceof PolicyError) return error
    throw error
  }
  throw new Error('the config was accepted')
}

const bash = (rules: RuleSet, kind: keyof RuleSet, command: string): string | undefined => rules[kind].find((rule) => rule.matches(ruleRequest('Bash', { command }, '/ws')))?.source

describe('loadPolicy', () => {
  it('R14 compiles the rules, keeps the mode, memoryDir and hooks of a valid config', () => {
    const policy = loadPolicy(
      {
        permissions: { defaultMode: 'acceptEdits', allow: ['Bash(npm test)'], ask: ['Bash(git push *)'], deny: ['Bash(rm *)'], memoryDir: '/var/memory' },
        hooks: { PreToolUse: [{ matcher: 'Bash|Edit', hooks: [{ type: 'command', command: 'true', timeoutMs: 500 }] }] },
      },
      FILE,
      ruleCommandSplitter,
    )
    expect(policy.permissions).toMatchObject({ defaultMode: 'acceptEdits', memoryDir: '/var/memory' })
    expect(bash(policy.rules, 'allow', 'timeout 9 npm test')).toBe('Bash(npm test)')
    expect(bash(policy.rules, 'ask', 'git push origin')).toBe('Bash(git push *)')
    expect(bash(policy.rules, 'deny', 'ls && rm -rf /')).toBe('Bash(rm *)')
    expect(policy.hooks.PreToolUse?.[0]?.matcher).toBe('Bash|Edit')
  })

  it('compiles fourEyes rules to match as ask rules do: any part of a command', () => {
    const policy = loadPolicy({ permissions: { fourEyes: ['Bash(git push *)', 'Write'] } }, FILE, ruleCommandSplitter)
    const match = (toolName: string, input: unknown): string | undefined => policy.fourEyes.find((rule) => rule.matches(ruleRequest(toolName, input, '/ws')))?.source
    expect(match('Bash', { command: 'npm test && git push origin main' })).toBe('Bash(git push *)')
    expect(match('Bash', { command: 'git status' })).toBeUndefined()
    expect(match('Write', { file_path: '/ws/a.txt', content: '' })).toBe('Write')
    expect(loadPolicy({}, FILE, ruleCommandSplitter).fourEyes).toEqual([])
  })

  it('R14 an empty config is the empty policy', () => {
    const policy = loadPolicy({}, FILE, ruleCommandSplitter)
    expect(policy.rules).toEqual({ deny: [], ask: [], allow: [] })
    expect(policy.hooks).toEqual({})
  })

  it.each<[string, Record<string, unknown>, string]>([
    ['a rule that is not a rule', { permissions: { allow: ['Bash(git status'] } }, `${FILE}: permissions.allow rule "Bash(git status": "Bash(git status" is not a rule: write Tool or Tool(specifier)`],
    ['an empty specifier', { permissions: { deny: ['Read()'] } }, `${FILE}: permissions.deny rule "Read()": "Read()" has an empty specifier`],
    ['a fourEyes rule that is not a rule', { permissions: { fourEyes: ['Bash(git push'] } }, `${FILE}: permissions.fourEyes rule "Bash(git push": "Bash(git push" is not a rule`],
    ['an MCP rule with a specifier', { permissions: { ask: ['mcp__github(x)'] } }, `${FILE}: permissions.ask rule "mcp__github(x)": "mcp__github(x)": MCP rules take no specifier`],
    ['a WebFetch rule without domain:', { permissions: { allow: ['WebFetch(example.com)'] } }, `${FILE}: permissions.allow rule "WebFetch(example.com)"`],
    ['an unknown mode', { permissions: { defaultMode: 'yolo' } }, `${FILE}: permissions: /defaultMode`],
    ['rules that are not a list', { permissions: { allow: 'Bash' } }, `${FILE}: permissions: /allow`],
    ['an unknown permissions key', { permissions: { alow: ['Bash'] } }, `${FILE}: permissions: /alow`],
    ['an unknown hook event', { hooks: { BeforeTool: [] } }, `${FILE}: hooks: /BeforeTool`],
    ['a hook without a command', { hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } }, `${FILE}: hooks: /PreToolUse/0/hooks/0`],
    ['an HTTP hook with a bad url', { hooks: { PostToolUse: [{ hooks: [{ type: 'http', url: 'ftp://x' }] }] } }, `${FILE}: hooks: /PostToolUse/0/hooks/0`],
    [
      'a matcher that is not a regular expression',
      { hooks: { PreToolUse: [{ matcher: 'Bash(', hooks: [{ type: 'command', command: 'true' }] }] } },
      `${FILE}: hooks.PreToolUse matcher "Bash(": Invalid regular expression`,
    ],
  ])('R14 refuses %s naming the file, the rule and the reason', (_case, config, message) => {
    const error = refusal(config)
    expect(error.name).toBe('PolicyError')
    expect(error.message.startsWith(message)).toBe(true)
  })

  it.each<[string, unknown, string]>([
    ['a command hook without its command', { type: 'command' }, '/PreToolUse/0/hooks/0/command Expected required property'],
    ['an HTTP hook with a bad url', { type: 'http', url: 'ftp://x' }, "/PreToolUse/0/hooks/0/url Expected string to match '^https?://'"],
    ['a timeout below 1 ms', { type: 'command', command: 'true', timeoutMs: 0 }, '/PreToolUse/0/hooks/0/timeoutMs Expected integer to be greater or equal to 1'],
    ['a hook without a type', { command: 'true' }, '/PreToolUse/0/hooks/0/type Expected required property'],
  ])('refuses %s with the field at fault, not only "Expected union value"', (_case, hook, reason) => {
    expect(refusal({ hooks: { PreToolUse: [{ hooks: [hook] }] } }).message).toBe(`${FILE}: hooks: ${reason}`)
  })
})

describe('a config section that is not an object', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['a list', []],
    ['a string', 'PreToolUse'],
  ])('refuses hooks that are %s, naming the field', (_case, hooks) => {
    expect(refusal({ hooks }).message).toBe(`${FILE}: hooks must be an object mapping hook events to matcher groups`)
  })

  it.each<[string, unknown]>([
    ['null', null],
    ['a list', []],
  ])('refuses permissions that are %s, naming the field', (_case, permissions) => {
    expect(refusal({ permissions }).message).toBe(`${FILE}: permissions must be an object`)
  })
})

describe('workspace rules from .toolexec/config.json', () => {
  async function workspaceWith(config: unknown): Promise<{ workspace: string; file: string }> {
    const workspace = await tempDir('ws-policy')
    await mkdir(path.join(workspace, '.toolexec'))
    const file = path.join(workspace, '.toolexec', 'config.json')
    await writeFile(file, typeof config === 'string' ? config : JSON.stringify(config))
    return { workspace, file }
  }

  it('R14 a workspace without the file adds no rules', async () => {
    const rulesOf = workspaceRules(ruleCommandSplitter)
    expect(await rulesOf(await tempDir('ws-none'))).toEqual({ deny: [], ask: [], allow: [] })
  })

  it('R14 reads the rules and reads them again when the file changes', async () => {
    const { workspace, file } = await workspaceWith({ permissions: { allow: ['Bash(make *)'] } })
    const rulesOf = workspaceRules(ruleCommandSplitter)
    const first = await rulesOf(workspace)
    expect(bash(first, 'allow', 'make build')).toBe('Bash(make *)')
    expect(await rulesOf(workspace)).toBe(first)
    await writeFile(file, JSON.stringify({ permissions: { deny: ['Bash(make *)'] } }))
    const later = new Date(Date.now() + 5_000)
    await utimes(file, later, later)
    const second = await rulesOf(workspace)
    expect(bash(second, 'allow', 'make build')).toBeUndefined()
    expect(bash(second, 'deny', 'make build')).toBe('Bash(make *)')
  })

  it.each([
    ['broken JSON', '{ "permissions": '],
    ['a malformed rule', { permissions: { allow: ['Bash('] } }],
    ['an unknown key', { permissions: { allowed: ['Bash'] } }],
  ])('R14 a workspace file with %s asks before every call, naming the file', async (_case, config) => {
    const { workspace, file } = await workspaceWith(config)
    const rules = await workspaceRules(ruleCommandSplitter)(workspace)
    expect(rules.allow).toEqual([])
    expect(rules.ask).toHaveLength(1)
    expect(rules.ask[0]?.source).toContain(`invalid ${file}`)
    expect(rules.ask[0]?.matches(ruleRequest('Read', {}, workspace))).toBe(true)
  })

  it.each([
    ['a FIFO', (file: string) => execFileSync('mkfifo', [file]), 'it is not a regular file'],
    ['a symlink to an outside file', (file: string) => symlinkSync(secretFile(), file), 'it is a symbolic link'],
    ['a file over the size cap', (file: string) => writeFileSync(file, ' '.repeat(MAX_WORKSPACE_CONFIG_BYTES + 1)), `it is larger than ${MAX_WORKSPACE_CONFIG_BYTES} bytes`],
    ['text that is not JSON', (file: string) => writeFileSync(file, `{\n "a": 1,\n ${SECRET}`), 'it is not valid JSON (line 3, column 2)'],
  ])('R14 a workspace file that is %s asks before every call, with a reason that tells what it is and none of its text', async (_case, make, problem) => {
    const workspace = await tempDir('ws-steering')
    await mkdir(path.join(workspace, '.toolexec'))
    const file = path.join(workspace, '.toolexec', 'config.json')
    make(file)
    const rules = await workspaceRules(ruleCommandSplitter)(workspace)
    expect(rules.ask.map((rule) => rule.source)).toEqual([`invalid ${file}: ${problem}`])
    expect(rules.allow).toEqual([])
  })

  it('R14 a .toolexec directory that is a symlink leading out of the workspace is not read; one leading inside is', async () => {
    const outside = path.dirname(secretFile())
    writeFileSync(path.join(outside, 'config.json'), JSON.stringify({ permissions: { allow: ['Bash'] } }))
    const leaking = await tempDir('ws-steering')
    symlinkSync(outside, path.join(leaking, '.toolexec'))
    const refused = await workspaceRules(ruleCommandSplitter)(leaking)
    expect(refused.ask.map((rule) => rule.source)).toEqual([`invalid ${path.join(leaking, '.toolexec', 'config.json')}: it leads outside the workspace`])
    expect(refused.allow).toEqual([])
    const inside = await tempDir('ws-steering')
    await mkdir(path.join(inside, 'settings'))
    writeFileSync(path.join(inside, 'settings', 'config.json'), JSON.stringify({ permissions: { allow: ['Bash(make *)'] } }))
    symlinkSync('settings', path.join(inside, '.toolexec'))
    expect(bash(await workspaceRules(ruleCommandSplitter)(inside), 'allow', 'make all')).toBe('Bash(make *)')
  })

  it('R14 the server rules come first, then the workspace rules, then the grants', async () => {
    const named = (source: string): RuleSet => ({ deny: [], ask: [], allow: [{ source, kind: 'allow', matches: () => true }] })
    const source = ruleSource(
      named('server'),
      () => named('workspace'),
      () => named('grant'),
    )
    expect((await source('/ws')).map((set) => set.allow[0]?.source)).toEqual(['server', 'workspace', 'grant'])
  })
})
