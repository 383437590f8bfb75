/**
 * The texts the model reads for a refused or failed call, byte for byte, through a real server
 * (R26, A4): every reason written by a person, a rule or a hook reaches the model projected
 * (whitespace runs folded, ends trimmed, cut at 497 characters plus `...`); the schema
 * validation text keeps its lines and closes with no newline before `</tool_use_error>`.
 */
import { Type } from '@sinclair/typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksConfig } from '../../src/contracts/hook-config.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { noteTool } from '../support/permission-tools.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { startHookServer, type HookServer } from '../support/hook-scripts/hooks.js'
import { configFile, SessionApi } from '../support/hook-scripts/session-api.js'
import { textOf } from '../support/model-text.js'

const SEPARATORS = ['\n', '\t', '  ', ' \n\t ', ' ', '\r\n\r\n', '\t\t']
const REASON_CHARS = 1_095

/** A reason of exactly 1,095 characters: words apart by runs of newlines, tabs and spaces, whitespace at both ends. */
function messyReason(tag: string): { reason: string; words: string[] } {
  const words: string[] = []
  let reason = '\n\t '
  for (let index = 0; reason.length < REASON_CHARS - 1; index++) {
    const word = `${tag}-${String(index)}`
    const separator = index === 0 ? '' : (SEPARATORS[index % SEPARATORS.length] as string)
    const room = REASON_CHARS - 1 - reason.length - separator.length
    if (room <= 0) break
    words.push(word.slice(0, room))
    reason += separator + word.slice(0, room)
  }
  reason = reason.padEnd(REASON_CHARS, '\n')
  return { reason, words }
}

/** What R26 makes of it, derived without the whitespace rule: the words one space apart, cut. */
function projected(words: readonly string[], prefix = ''): string {
  const text = prefix + words.join(' ')
  return text.length <= 500 ? text : `${text.slice(0, 497)}...`
}

const person = messyReason('person')
const preHook = messyReason('pre')
const permissionHook = messyReason('permission')
const postHook = messyReason('post')
// A rule is matched against the input's JSON text, where newlines and tabs are escaped: its whitespace runs are spaces.
const ruleWords = Array.from({ length: 120 }, (_, index) => `clause${String(index)}`)
const ruleText = ruleWords.join('   ')

let hookServer: HookServer
let s: TestServer
let api: SessionApi

beforeAll(async () => {
  hookServer = await startHookServer()
  hookServer.on('/pre', { body: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: preHook.reason } } })
  hookServer.on('/permission', { body: { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: permissionHook.reason } } } })
  hookServer.on('/post', { body: { decision: 'block', reason: postHook.reason } })
  const http = (route: string) => ({ type: 'http' as const, url: `${hookServer.url}${route}` })
  const hooks: HooksConfig = {
    PreToolUse: [{ matcher: 'PreBlocked', hooks: [http('/pre')] }],
    PermissionRequest: [{ matcher: 'HookDenied', hooks: [http('/permission')] }],
    PostToolUse: [{ matcher: 'PostBlocked', hooks: [http('/post')] }],
  }
  const permissions = { deny: [`RuleDenied(*${ruleText}*)`] }
  const tools: ToolEntry[] = [
    noteTool('PersonDenied', 'system').entry,
    noteTool('PreBlocked', 'none').entry,
    noteTool('HookDenied', 'system').entry,
    noteTool('PostBlocked', 'none').entry,
    noteTool('RuleDenied', 'none').entry,
    noteTool('Strict', 'none', { inputSchema: Type.Object({ file_path: Type.String() }) }).entry,
  ]
  s = await startTestServer({ env: { TOOLEXEC_CONFIG: await configFile({ hooks, permissions }) }, tools })
  api = new SessionApi(s)
})

afterAll(async () => {
  await s?.close()
  await hookServer?.close()
})

describe('R26 A4 the reasons the model reads', () => {
  it('builds each reason at 1,095 characters with newlines, tabs and runs of spaces', () => {
    for (const { reason } of [person, preHook, permissionHook, postHook]) {
      expect(reason).toHaveLength(REASON_CHARS)
      expect(reason).toMatch(/\n\t/)
      expect(reason).toMatch(/\S {2}\S/)
    }
    expect(projected(person.words)).toHaveLength(500)
  })

  it("R26 a person's deny message reaches the model projected; the event keeps what the person wrote", async () => {
    const sessionId = await api.session()
    const { request, call } = await api.runAnswering(sessionId, 'PersonDenied', { note: 'x' }, { decision: 'deny', message: person.reason })
    expect(call).toMatchObject({ status: 'denied', result: { error: { stage: 'permission', message: person.reason } } })
    expect(call.modelContent).toBe(projected(person.words))
    expect(call.modelContent).toBe(
      'person-0 person-1 person-2 person-3 person-4 person-5 person-6 person-7 person-8 person-9 person-10 person-11 person-12 person-13 person-14 person-15 person-16 person-17 person-18 person-19 person-20 person-21 person-22 person-23 person-24 person-25 person-26 person-27 person-28 person-29 person-30 person-31 person-32 person-33 person-34 person-35 person-36 person-37 person-38 person-39 person-40 person-41 person-42 person-43 person-44 person-45 person-46 person-47 person-48 person-49 person-...',
    )
    const resolved = (await api.events(sessionId)).filter((event) => event.type === 'PermissionResolved')
    expect(resolved).toEqual([expect.objectContaining({ permissionId: request.id, decision: 'deny', decidedBy: 'client', reason: person.reason })])
  })

  it("R26 a PreToolUse hook's deny reason reaches the model projected", async () => {
    const call = await api.run(await api.session(), 'PreBlocked', { note: 'x' })
    expect(call).toMatchObject({ status: 'denied', result: { error: { stage: 'pre_tool_use', message: preHook.reason } } })
    expect(call.modelContent).toBe(projected(preHook.words))
    expect(call.modelContent).toHaveLength(500)
  })

  it("R26 a PermissionRequest hook's deny message reaches the model projected", async () => {
    const call = await api.run(await api.session(), 'HookDenied', { note: 'x' })
    expect(call).toMatchObject({ status: 'denied', result: { error: { stage: 'permission', message: permissionHook.reason } } })
    expect(call.modelContent).toBe(projected(permissionHook.words))
  })

  it('R26 a PostToolUse block reason reaches the model projected, after its fixed prefix', async () => {
    const call = await api.run(await api.session(), 'PostBlocked', { note: 'x' })
    expect(call).toMatchObject({ status: 'failed', result: { error: { stage: 'post_tool_use' } } })
    expect(call.modelContent).toBe(projected(postHook.words, 'PostToolUse hook blocked this result: '))
    expect(textOf(call.modelContent)).toMatch(/^PostToolUse hook blocked this result: post-0 post-1 post-2 /)
  })

  it("R26 a deny rule's reason reaches the model projected", async () => {
    const call = await api.run(await api.session(), 'RuleDenied', { note: `before ${ruleText} after` })
    const reason = `Permission to use RuleDenied has been denied by the rule RuleDenied(*${ruleText}*)`
    expect(reason.length).toBeGreaterThan(1_000)
    expect(call).toMatchObject({ status: 'denied', result: { error: { stage: 'permission', message: reason } } })
    expect(call.modelContent).toBe(projected([`Permission to use RuleDenied has been denied by the rule RuleDenied(*${ruleWords.join(' ')}*)`]))
  })

  it('A4 a missing parameter ends `is missing</tool_use_error>` with no newline before the closing tag', async () => {
    const call = await api.run(await api.session(), 'Strict', {})
    expect(call.modelContent).toBe('<tool_use_error>InputValidationError: Strict failed due to the following issue:\nThe required parameter `file_path` is missing</tool_use_error>')
  })
})
