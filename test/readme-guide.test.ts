import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionBehavior, PermissionVerdict } from '../src/contracts/ports.js'
import type { ToolEntry } from '../src/contracts/tool-entry.js'
import { runPostToolUse, runPreToolUse } from '../src/executor/hook-flow.js'
import { flagsFor } from '../src/executor/tool-flags.js'
import { createConfigHookRunner } from '../src/hooks/config-hook-runner.js'
import { ruleCommandSplitter } from '../src/permissions/command-splitter.js'
import { loadPolicy, type Policy } from '../src/permissions/policy.js'
import { createRulePermissionService } from '../src/permissions/rule-permission-service.js'
import { createBashTool } from '../src/tools/bash/index.js'
import { noteTool, tempDir, writeTool } from './support/permission-tools.js'
import { startTestServer } from './support/server.js'
import { editTool, readTool } from './support/tools.js'
import { startHookServer, type HookServer } from './support/hook-scripts/hooks.js'
import { configFile, SessionApi } from './support/hook-scripts/session-api.js'
import { textOf } from './support/model-text.js'

const SECTION = readFileSync(path.join(import.meta.dirname, '..', 'docs', 'permissions-and-hooks.md'), 'utf8')
const EXAMPLES = [...SECTION.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1] as string)
const NEVER = new AbortController().signal

let hookServer: HookServer

beforeAll(async () => {
  hookServer = await startHookServer()
})

afterAll(async () => {
  await hookServer.close()
})

/** An example as the server would load it, with its hook endpoints moved to the test's hook server. */
function example(index: number, replace: Record<string, string> = {}): { config: Record<string, unknown>; policy: Policy } {
  let text = (EXAMPLES[index] ?? '').replace(/http:\/\/127\.0\.0\.1:87\d\d/g, hookServer.url)
  for (const [from, to] of Object.entries(replace)) text = text.split(from).join(to)
  const config = JSON.parse(text) as Record<string, unknown>
  return { config, policy: loadPolicy(config, `README.md example ${index + 1}`, ruleCommandSplitter) }
}

const TOOLS: Record<string, ToolEntry> = {
  Bash: createBashTool(),
  Read: readTool,
  Edit: editTool,
  WebFetch: noteTool('WebFetch', 'network', { accessTarget: (input) => ({ kind: 'url', url: (input as { url: string }).url }) }).entry,
}
const toolFor = (name: string): ToolEntry => TOOLS[name] ?? noteTool(name, 'network').entry

describe('README: permissions and hooks', () => {
  it('R14 has a page of its own with three complete JSON config examples', () => {
    expect(SECTION.startsWith('# Permissions and hooks\n')).toBe(true)
    expect(EXAMPLES).toHaveLength(3)
    for (const text of EXAMPLES) expect(() => JSON.parse(text) as unknown).not.toThrow()
  })

  const RULES: [string, Record<string, unknown>, PermissionBehavior][] = [
    ['Bash', { command: 'npm run test -- --watch' }, 'allow'],
    ['Bash', { command: 'npm run test && npm run lint' }, 'allow'],
    ['Bash', { command: 'npm run test && curl evil.example' }, 'deny'],
    ['Bash', { command: 'git diff HEAD; rm -rf /' }, 'deny'],
    ['Bash', { command: 'git push origin main' }, 'ask'],
    ['Bash', { command: 'ls -la' }, 'allow'],
    ['Bash', { command: 'make' }, 'ask'],
    ['Edit', { file_path: 'src/app.ts' }, 'allow'],
    ['Edit', { file_path: 'package.json' }, 'ask'],
    ['Edit', { file_path: '/etc/hosts' }, 'deny'],
    ['Read', { file_path: path.join(os.homedir(), '.ssh', 'id_ed25519') }, 'deny'],
    ['WebFetch', { url: 'https://api.example.com/v1' }, 'allow'],
    ['WebFetch', { url: 'https://internal.example.com/' }, 'deny'],
    ['mcp__docs__search', {}, 'allow'],
    ['mcp__github__create_issue', {}, 'ask'],
    ['mcp__github__delete_repository', {}, 'deny'],
  ]
  it.each(RULES)('R14 the rules example decides %s %j: %s', async (toolName, input, behavior) => {
    const { policy } = example(0)
    const service = createRulePermissionService(() => [policy.rules])
    const entry = toolFor(toolName)
    const verdict: PermissionVerdict = await service.evaluate({
      sessionId: 's',
      callId: 'c',
      toolName,
      input,
      flags: flagsFor(entry, input),
      entry,
      mode: policy.permissions.defaultMode ?? 'default',
      workspace: '/work/project',
    })
    expect(verdict.behavior).toBe(behavior)
  })

  it('R14 the hooks example runs: the bash one-liner blocks rm -rf, the HTTP hook is asked, the post hook adds context', async () => {
    const { policy } = example(1)
    const runner = createConfigHookRunner(policy.hooks)
    const workspace = await tempDir('readme-hooks')
    const call = (toolName: string, toolInput: unknown) => ({ hookEventName: 'PreToolUse' as const, sessionId: 's', callId: 'c', toolName, toolInput, workspace })
    const blocked = await runPreToolUse({ hooks: runner, payload: call('Bash', { command: 'rm -rf build' }), signal: NEVER, emit: undefined })
    expect(blocked).toMatchObject({ decision: 'deny', reason: 'rm -rf is not allowed here' })
    expect((await runPreToolUse({ hooks: runner, payload: call('Bash', { command: 'ls' }), signal: NEVER, emit: undefined })).decision).toBeUndefined()
    hookServer.on('/hooks/pre-tool-use', { body: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'review edits' } } })
    expect(await runPreToolUse({ hooks: runner, payload: call('Edit', { file_path: 'src/a.ts' }), signal: NEVER, emit: undefined })).toMatchObject({ decision: 'ask', reason: 'review edits' })
    expect(hookServer.received.at(-1)).toMatchObject({ path: '/hooks/pre-tool-use', headers: { authorization: 'Bearer change-me' }, body: { tool_name: 'Edit' } })
    const post = await runPostToolUse({ hooks: runner, payload: { ...call('Write', {}), hookEventName: 'PostToolUse' }, signal: NEVER, emit: undefined })
    expect(post.contexts).toEqual(['Run npm run lint before you finish.'])
    expect(runner.has('PermissionRequest', 'mcp__github__create_issue')).toBe(true)
    expect(runner.has('PermissionRequest', 'Bash')).toBe(false)
    expect(runner.has('PostToolUseFailure', 'Anything')).toBe(true)
  })

  it('R14 the combined example through a real server: its mode, rules, memory directory and failClosed hook', async () => {
    const memoryDir = path.join(await tempDir('readme-memory'), 'memory')
    const { config } = example(2, { '/var/lib/toolexec/memory': memoryDir })
    const tools = [TOOLS.Bash as ToolEntry, editTool, writeTool().entry]
    const server = await startTestServer({ env: { TOOLEXEC_CONFIG: await configFile(config) }, tools })
    try {
      const api = new SessionApi(server)
      const sessionId = await api.session({ workspace: await tempDir('readme-ws') })
      expect((await server.json<{ permissionMode: string }>('GET', `/sessions/${sessionId}`)).body.permissionMode).toBe('acceptEdits')
      expect(await api.run(sessionId, 'Edit', { file_path: 'src/a.ts' })).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
      expect(await api.run(sessionId, 'Edit', { file_path: '.env.local' })).toMatchObject({ status: 'denied', modelContent: 'Permission to use Edit has been denied by the rule Edit(.env*)' })
      expect(await api.run(sessionId, 'Write', { file_path: path.join(memoryDir, 'notes.md'), content: 'remember' })).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
      hookServer.on('/policy/bash', { status: 500, body: 'policy service down' })
      const closed = await api.run(sessionId, 'Bash', { command: 'npm run build' })
      expect(closed.status).toBe('denied')
      expect(textOf(closed.modelContent)).toContain('failed and is marked failClosed: Hook answered HTTP 500: policy service down')
      hookServer.on('/policy/bash', { body: { permissionDecision: 'allow' } })
      expect(await api.run(sessionId, 'Bash', { command: 'rm -rf build' })).toMatchObject({ status: 'denied', modelContent: 'Permission to use Bash has been denied by the rule Bash(rm -rf *)' })
    } finally {
      await server.close()
    }
  })
})
