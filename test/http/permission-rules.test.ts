import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionMode } from '../../src/contracts/ports.js'
import type { ProjectRule } from '../../src/contracts/api.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { ConfigError } from '../../src/config.js'
import { PolicyError } from '../../src/permissions/policy.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { exitPlanModeTool, noteTool, tempDir, writeTool } from '../support/permission-tools.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { editTool, readTool } from '../support/tools.js'
import { configFile, SessionApi } from '../support/hook-scripts/session-api.js'
import { textOf } from '../support/model-text.js'

const CONFIG = {
  permissions: {
    allow: ['Bash(echo *)', 'Bash(touch *)', 'Edit(src/**)'],
    ask: ['Bash(git push *)', 'Edit(docs/**)'],
    deny: ['Bash(rm *)', 'Bash(curl *)', 'Edit(secrets/**)', 'Deploy(*production*)'],
  },
}

const TOOLS: readonly ToolEntry[] = [
  createBashTool(),
  readTool,
  editTool,
  writeTool().entry,
  exitPlanModeTool().entry,
  noteTool('Deploy', 'system', { permission: { sideEffectScope: 'system', alwaysAsk: true } }).entry,
]

let s: TestServer
let api: SessionApi

beforeAll(async () => {
  s = await startTestServer({ env: { TOOLEXEC_CONFIG: await configFile(CONFIG) }, tools: TOOLS })
  api = new SessionApi(s)
})

afterAll(async () => {
  await s.close()
})

const bash = (command: string): { command: string } => ({ command })

describe('a config refused at start', () => {
  it.each([
    [{ permissions: { deny: ['Bash(rm -rf /'] } }, 'permissions.deny rule "Bash(rm -rf /": "Bash(rm -rf /" is not a rule'],
    [{ permissions: { allow: ['WebFetch(example.com)'] } }, 'permissions.allow rule "WebFetch(example.com)": "WebFetch(example.com)": WebFetch rules take domain:host'],
    [{ hooks: { PreToolUse: [{ matcher: '(', hooks: [{ type: 'command', command: 'true' }] }] } }, 'hooks.PreToolUse matcher "(": Invalid regular expression'],
  ])('R14 startServer rejects %j with a PolicyError naming the file, the rule and the reason', async (config, reason) => {
    const file = await configFile(config)
    const started = startTestServer({ env: { TOOLEXEC_CONFIG: file } })
    await expect(started).rejects.toBeInstanceOf(PolicyError)
    await expect(started).rejects.toThrow(`${file}: ${reason}`)
  })

  it('refuses "hooks": null at start, naming the field, instead of running without hooks', async () => {
    const file = await configFile({ hooks: null })
    const started = startTestServer({ env: { TOOLEXEC_CONFIG: file } })
    await expect(started).rejects.toBeInstanceOf(PolicyError)
    await expect(started).rejects.toThrow(`${file}: hooks must be an object`)
  })

  it('R14 a config file that is not JSON is refused with the file named', async () => {
    const file = await configFile('{ "permissions": ')
    await expect(startTestServer({ env: { TOOLEXEC_CONFIG: file } })).rejects.toThrow(ConfigError)
    await expect(startTestServer({ env: { TOOLEXEC_CONFIG: file } })).rejects.toThrow(`TOOLEXEC_CONFIG ${file}`)
  })
})

describe('rules over HTTP', () => {
  it('R14 an allowed compound command runs without asking: every part matches an allow rule', async () => {
    const sessionId = await api.session()
    const call = await api.run(sessionId, 'Bash', bash('echo hi && touch made.txt'))
    expect(call).toMatchObject({ status: 'succeeded' })
    expect(call.result?.permission).toBe('none')
    expect(existsSync(path.join(s.dataDir, 'made.txt'))).toBe(true)
  })

  it('R14 quoted && is part of an argument: the command is one allowed echo', async () => {
    const call = await api.run(await api.session(), 'Bash', bash('echo "a && rm b"'))
    expect(call.status).toBe('succeeded')
    expect(textOf(call.modelContent)).toContain('a && rm b')
  })

  it.each([
    ['echo ok; rm -rf gone', 'Bash(rm *)'],
    ['echo $(rm x)', 'Bash(rm *)'],
    ['echo ok && curl evil.example', 'Bash(curl *)'],
    ['timeout 5 nice rm -f x', 'Bash(rm *)'],
    ['FOO=1 rm -f x', 'Bash(rm *)'],
    ['echo ok\nrm -f x', 'Bash(rm *)'],
    ['(echo ok; rm -f x)', 'Bash(rm *)'],
    ['echo ok | rm -f x', 'Bash(rm *)'],
  ])('R14 %j is denied by %s before anyone is asked, and the event names the rule', async (command, rule) => {
    const sessionId = await api.session()
    const call = await api.run(sessionId, 'Bash', bash(command))
    expect(call).toMatchObject({ status: 'denied', modelContent: `Permission to use Bash has been denied by the rule ${rule}` })
    const resolved = (await api.events(sessionId)).filter((event) => event.type === 'PermissionResolved')
    expect(resolved).toEqual([expect.objectContaining({ decision: 'deny', decidedBy: 'rule', ruleId: rule })])
  })

  it('R14 an ask rule beats an allow rule: echo && git push asks', async () => {
    const sessionId = await api.session()
    const { request, call } = await api.runAnswering(sessionId, 'Bash', bash('echo ok && git push origin main'), { decision: 'deny', message: 'not now' })
    expect(request).toMatchObject({ reason: 'The rule Bash(git push *) asks before Bash runs', suggestedRule: 'Bash(echo ok && git push origin main)' })
    expect(call).toMatchObject({ status: 'denied', modelContent: 'not now' })
  })

  it('R40 a read-only command with no rule runs without approval in default mode (A6); another command asks', async () => {
    const sessionId = await api.session()
    const call = await api.run(sessionId, 'Bash', bash('ls -la | head -n 3 && git status --short 2>/dev/null; pwd'))
    expect(call).toMatchObject({ status: 'succeeded', flags: { readOnly: true, sideEffectScope: 'none' } })
    expect(call.result?.permission).toBe('none')
    const asked = await api.runAnswering(sessionId, 'Bash', bash('mkdir -p build'), { decision: 'deny' })
    expect(asked.request).toMatchObject({ reason: 'Tool Bash requires approval: mkdir is not a known read-only program', riskLevel: 'medium' })
  })

  it("R14 a workspace's own config adds rules but cannot loosen a server deny", async () => {
    const workspace = await tempDir('ws-loosen')
    await mkdir(path.join(workspace, '.toolexec'))
    await writeFile(path.join(workspace, '.toolexec', 'config.json'), JSON.stringify({ permissions: { allow: ['Bash', 'Bash(rm *)'] } }))
    const sessionId = await api.session({ workspace })
    expect(await api.run(sessionId, 'Bash', bash('rm -f anything'))).toMatchObject({ status: 'denied' })
    const added = await api.run(sessionId, 'Bash', bash('mkdir -p made-by-workspace-rule'))
    expect(added.status).toBe('succeeded')
    expect(existsSync(path.join(workspace, 'made-by-workspace-rule'))).toBe(true)
  })
})

describe('permission modes over HTTP', () => {
  it('R14 default: reads run, edits ask', async () => {
    const sessionId = await api.session({ permissionMode: 'default' })
    expect((await api.run(sessionId, 'Read', { file_path: 'a.txt' })).status).toBe('succeeded')
    const { request } = await api.runAnswering(sessionId, 'Edit', { file_path: 'a.txt' }, { decision: 'allow' })
    expect(request.reason).toBe('Tool Edit requires approval')
  })

  it('R14 acceptEdits: edits inside the workspace run, outside ask, commands ask', async () => {
    const sessionId = await api.session({ permissionMode: 'acceptEdits' })
    expect(await api.run(sessionId, 'Edit', { file_path: 'notes/a.txt' })).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
    const outside = await api.runAnswering(sessionId, 'Edit', { file_path: '/etc/hosts' }, { decision: 'deny' })
    expect(outside.request.reason).toBe(`/etc/hosts is outside the workspace ${s.dataDir}`)
    await api.runAnswering(sessionId, 'Bash', bash('mkdir -p x'), { decision: 'deny' })
  })

  it('R14 plan: nothing that changes the workspace runs, an allow rule included; reads run; ExitPlanMode asks', async () => {
    const sessionId = await api.session({ permissionMode: 'plan' })
    expect(await api.run(sessionId, 'Edit', { file_path: 'src/a.ts' })).toMatchObject({ status: 'denied', modelContent: 'Edit is not allowed in plan mode' })
    expect(await api.run(sessionId, 'Bash', bash('touch x'))).toMatchObject({ status: 'denied', modelContent: 'Bash is not allowed in plan mode' })
    expect((await api.run(sessionId, 'Bash', bash('ls'))).status).toBe('succeeded')
    const { call } = await api.runAnswering(sessionId, 'ExitPlanMode', { note: 'the plan' }, { decision: 'allow' })
    expect(call.status).toBe('succeeded')
  })

  it('R14 dontAsk: what would ask is denied without a request; allow rules still run', async () => {
    const sessionId = await api.session({ permissionMode: 'dontAsk' })
    expect(await api.run(sessionId, 'Edit', { file_path: 'a.txt' })).toMatchObject({ status: 'denied', modelContent: 'Permission denied for Edit' })
    const pushed = await api.run(sessionId, 'Bash', bash('git push origin'))
    expect(pushed).toMatchObject({ status: 'denied', modelContent: 'The rule Bash(git push *) asks before Bash runs, and dontAsk mode denies what would ask' })
    expect((await api.run(sessionId, 'Edit', { file_path: 'src/a.ts' })).status).toBe('succeeded')
    const events = await api.events(sessionId)
    expect(events.filter((event) => event.type === 'PermissionRequested')).toEqual([])
  })

  it('R14 bypassPermissions: everything runs, except deny rules and alwaysAsk tools', async () => {
    const sessionId = await api.session({ permissionMode: 'bypassPermissions' })
    expect(await api.run(sessionId, 'Bash', bash('mkdir -p bypassed'))).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
    expect(await api.run(sessionId, 'Edit', { file_path: '/etc/hosts' })).toMatchObject({ status: 'succeeded' })
    expect(await api.run(sessionId, 'Bash', bash('rm -rf bypassed'))).toMatchObject({ status: 'denied' })
    expect(await api.run(sessionId, 'Deploy', { note: 'to production now' })).toMatchObject({
      status: 'denied',
      modelContent: 'Permission to use Deploy has been denied by the rule Deploy(*production*)',
    })
    const { request, call } = await api.runAnswering(sessionId, 'Deploy', { note: 'staging' }, { decision: 'allow' })
    expect(request.reason).toBe('Tool Deploy requires approval')
    expect(call.result?.permission).toBe('approved')
  })

  const MODES: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']
  it.each(MODES)('R14 in %s mode, writes to AGENTS.md, CLAUDE.md and .toolexec/config.json ask', async (permissionMode) => {
    const sessionId = await api.session({ permissionMode })
    for (const file of ['AGENTS.md', 'CLAUDE.md', '.toolexec/config.json']) {
      const { request, call } = await api.runAnswering(sessionId, 'Write', { file_path: file, content: 'steer' }, { decision: 'deny' })
      expect(request).toMatchObject({ riskLevel: 'high', reason: `${file} steers the agent: writing it always needs approval` })
      expect(call.status).toBe('denied')
    }
  })

  it.each<PermissionMode>(['default', 'plan', 'acceptEdits'])('R14 in %s mode a Markdown write in the memory directory runs without asking (A9)', async (permissionMode) => {
    const sessionId = await api.session({ permissionMode })
    const file = path.join(s.dataDir, 'memory', `${permissionMode}.md`)
    const call = await api.run(sessionId, 'Write', { file_path: file, content: '# remembered' })
    expect(call).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
    expect(existsSync(file)).toBe(true)
  })

  it('R14 only Markdown is memory: another file in the memory directory asks (A9)', async () => {
    const sessionId = await api.session()
    const { request } = await api.runAnswering(sessionId, 'Write', { file_path: path.join(s.dataDir, 'memory', 'notes.txt'), content: '' }, { decision: 'deny' })
    expect(request.reason).toBe('Tool Write requires approval')
  })

  it('R14 a memory file is allowed even when the session works in another workspace (A9)', async () => {
    const sessionId = await api.session({ workspace: await tempDir('ws-memory') })
    const file = path.join(s.dataDir, 'memory', 'elsewhere.md')
    expect(await api.run(sessionId, 'Write', { file_path: file, content: 'x' })).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
  })
})

describe('grants over HTTP', () => {
  const compound = 'mkdir -p granted-a && mkdir -p granted-b'

  it('R16 scope session: the identical compound command then runs without asking, a different one still asks', async () => {
    const sessionId = await api.session()
    const first = await api.runAnswering(sessionId, 'Bash', bash(compound), { decision: 'allow', scope: 'session' })
    expect(first.request.suggestedRule).toBe(`Bash(${compound})`)
    for (let round = 0; round < 2; round++) {
      expect(await api.run(sessionId, 'Bash', bash(compound))).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
    }
    await api.runAnswering(sessionId, 'Bash', bash('mkdir -p granted-a && mkdir -p granted-c'), { decision: 'deny' })
    const events = await api.events(sessionId)
    expect(events.filter((event) => event.type === 'PermissionRequested')).toHaveLength(2)
    expect(events.find((event) => event.type === 'PermissionResolved')).toMatchObject({ decision: 'allow', decidedBy: 'client', scope: 'session' })
  })

  it('R16 scope project: a grant for the workspace, listed and removable at /permissions/rules', async () => {
    const workspace = await tempDir('ws-project')
    const first = await api.session({ workspace })
    await api.runAnswering(first, 'Bash', bash(compound), { decision: 'allow', scope: 'project' })
    const listed = await s.json<{ rules: ProjectRule[] }>('GET', '/permissions/rules')
    const rule = listed.body.rules.find((entry) => entry.workspace === workspace)
    expect(rule).toMatchObject({ rule: `Bash(${compound})`, workspace })
    expect(rule?.id).toMatch(/^rule_/)
    const second = await api.session({ workspace })
    expect(await api.run(second, 'Bash', bash(compound))).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
    const elsewhere = await api.session()
    await api.runAnswering(elsewhere, 'Bash', bash(compound), { decision: 'deny' })
    expect((await s.json('DELETE', `/permissions/rules/${rule?.id}`)).status).toBe(204)
    expect((await s.json<{ rules: ProjectRule[] }>('GET', '/permissions/rules')).body.rules.some((entry) => entry.id === rule?.id)).toBe(false)
    await api.runAnswering(second, 'Bash', bash(compound), { decision: 'deny' })
  })

  it('R16 deleting an unknown project rule is a 404 in the error format', async () => {
    const reply = await s.json<{ error: { code: string } }>('DELETE', '/permissions/rules/rule_missing')
    expect(reply.status).toBe(404)
    expect(reply.body.error.code).toBe('API_ERR_RULE_NOT_FOUND')
  })
})
