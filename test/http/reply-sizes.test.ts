/**
 * Reply sizes: a large text appears once in a reply. A 2 MB Write's content is the call's
 * `input.content`; `resolvedInput` carries only what resolving changed, and the file_diff
 * display keeps 1,000 characters a line. The rest is where the OpenAPI document says.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryEntry, ScheduleReply } from '../../src/contracts/api.js'
import { createFunctionHookRunner } from '../../src/hooks/function-hook-runner.js'
import { resolvedInputView } from '../../src/sessions/views.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { SessionApi } from '../support/hook-scripts/session-api.js'
import { hook, noteTool } from '../support/permission-tools.js'

const CONTENT_CHARS = 2_000_000
const REPLY_LIMIT = 2_200_000

let s: TestServer
let api: SessionApi

beforeAll(async () => {
  // A PreToolUse hook that rewrites Retag's input to one field: the resolution drops `tag`.
  const rewrite = hook('PreToolUse', () => ({ updatedInput: { note: 'rewritten' } }), 'Retag')
  s = await startTestServer({ tools: [...builtinTools(), noteTool('Retag', 'none').entry], hooks: createFunctionHookRunner([rewrite]) })
  api = new SessionApi(s)
})

afterAll(async () => {
  await s?.close()
})

/** The input as the tool ran with it, put back together as the CallRecord schema describes. */
function resolvedFrom(input: Record<string, unknown>, changed: Record<string, unknown>, removed: readonly string[] = []): Record<string, unknown> {
  const kept = Object.fromEntries(Object.entries(input).filter(([key]) => !removed.includes(key)))
  return { ...kept, ...changed }
}

async function rawReply(route: string): Promise<string> {
  const response = await fetch(`${s.url}${route}`)
  expect(response.status).toBe(200)
  return response.text()
}

describe('reply sizes', () => {
  it.each([
    ['one line of 2 MB', 'one-line.txt', 'x'.repeat(CONTENT_CHARS)],
    ['160 lines of 12,500 characters', 'long-lines.txt', `${'y'.repeat(12_499)}\n`.repeat(160)],
  ])('a 2 MB Write (%s): GET /schedules/:id and the history carry its content once, and all of it can be had back', async (_shape, file, content) => {
    expect(content).toHaveLength(CONTENT_CHARS)
    const sessionId = await api.session({ permissionMode: 'acceptEdits' })
    const input = { file_path: `big/${file}`, content }
    const scheduleId = await api.accept(sessionId, [{ id: 'w', name: 'Write', input }])
    await api.finished(scheduleId)

    const text = await rawReply(`/schedules/${scheduleId}`)
    expect(text.length).toBeLessThan(REPLY_LIMIT)
    const call = (JSON.parse(text) as ScheduleReply).calls[0]
    expect(call?.status).toBe('succeeded')
    const written = path.join(s.dataDir, 'big', file)
    expect(call?.resolvedInput).toEqual({ file_path: written })
    expect(call?.resolvedInputRemoved).toBeUndefined()
    // The whole content, from the reply alone: the input with what resolving changed laid over it.
    expect(resolvedFrom(call?.input as Record<string, unknown>, call?.resolvedInput as Record<string, unknown>)).toEqual({ file_path: written, content })
    expect(await readFile(written, 'utf8')).toBe(content)
    expect(call?.result?.display).toMatchObject({ kind: 'file_diff', filePath: written, operation: 'create', truncated: true })

    const history = await rawReply(`/sessions/${sessionId}/history`)
    expect(history.length).toBeLessThan(REPLY_LIMIT)
    const [entry] = (JSON.parse(history) as { entries: HistoryEntry[] }).entries
    expect((entry?.input as { content: string }).content).toBe(content)
  })

  it('R37 R38 every event of an approved 2 MB Write carries its content at most once: the approval preview and the result display keep 1,000 characters a line', async () => {
    const sessionId = await api.session()
    const content = 'z'.repeat(CONTENT_CHARS)
    const scheduleId = await api.accept(sessionId, [{ id: 'asked', name: 'Write', input: { file_path: 'asked.txt', content } }])
    const pending = await api.pending(sessionId)
    // The pending request as GET /permissions lists it: the input once, the preview cut.
    const listed = await rawReply(`/permissions?sessionId=${sessionId}&status=pending`)
    expect(listed.length).toBeLessThan(REPLY_LIMIT)
    expect(pending.preview).toMatchObject({ display: { kind: 'file_diff', truncated: true, hunks: [{ lines: ['+' + 'z'.repeat(999)] }] } })
    expect((await api.answer(pending.id, { decision: 'allow' })).status).toBe(200)
    await api.finished(scheduleId)
    const events = await api.events(sessionId, scheduleId)
    for (const event of events) expect(JSON.stringify(event).length, event.type).toBeLessThan(REPLY_LIMIT)
    const requested = events.find((event) => event.type === 'PermissionRequested')
    expect((requested?.input as { content: string }).content).toBe(content)
    const result = events.find((event) => event.type === 'ToolCallResult')
    expect(JSON.stringify(result).length).toBeLessThan(10_000)
  })

  it('R13 a record names the fields a PreToolUse rewrite dropped, and the input the tool ran with can be rebuilt from it', async () => {
    const input = { note: 'original', tag: 'x'.repeat(10_000) }
    const call = await api.run(await api.session(), 'Retag', input)
    expect(call).toMatchObject({ status: 'succeeded', input, resolvedInput: { note: 'rewritten' }, resolvedInputRemoved: ['tag'] })
    expect(resolvedFrom(input, call.resolvedInput as Record<string, unknown>, call.resolvedInputRemoved)).toEqual({ note: 'rewritten' })
  })

  it('R13 a resolution that drops a field names it, and the input the tool ran with can be rebuilt', () => {
    // Through the view directly: no built-in tool drops a field, a PreToolUse updatedInput can.
    const input = { file_path: 'a.txt', content: 'big', mode: 'x', nested: { a: [1, 2] } }
    const resolved = { file_path: '/w/a.txt', content: 'big', nested: { a: [1, 2] }, extra: [1] }
    const view = resolvedInputView(input, resolved)
    expect(view).toEqual({ resolvedInput: { file_path: '/w/a.txt', extra: [1] }, resolvedInputRemoved: ['mode'] })
    expect(resolvedFrom(input, view.resolvedInput as Record<string, unknown>, view.resolvedInputRemoved)).toEqual(resolved)
    expect(resolvedInputView(input, structuredClone(input))).toEqual({ resolvedInput: {} })
    expect(resolvedInputView('text', 'TEXT')).toEqual({ resolvedInput: 'TEXT' })
  })
})
