/**
 * Reply sizes: a large text appears once in a reply. A 2 MB Write's content is the call's
 * `input.content`; `resolvedInput` carries only what resolving changed, and the file_diff
 * display keeps 1,000 characters a line. A result's model content is the record's
 * `modelContent` only; a Read's text is not repeated as its output; a command's kept output
 * is `output.output` followed by `display.output`. The rest is where the OpenAPI document says.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CallRecord, CallResult, HistoryEntry, ScheduleReply } from '../../src/contracts/api.js'
import type { BashOutputDisplay } from '../../src/contracts/display.js'
import { omissionMarker } from '../../src/tools/bash/captured-output.js'
import { createFunctionHookRunner } from '../../src/hooks/function-hook-runner.js'
import { resolvedInputView } from '../../src/sessions/views.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { SessionApi } from '../support/hook-scripts/session-api.js'
import { hook, noteTool } from '../support/permission-tools.js'
import { textOf } from '../support/model-text.js'

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

/** A reply holds its largest text once: at most 1.1 times that text as JSON writes it. */
function expectAboutOnce(reply: string, largest: string): void {
  expect(reply.length).toBeLessThanOrEqual(Math.ceil(1.1 * JSON.stringify(largest).length))
}

/** Runs one call in a session of its own; gives its record from GET /schedules/:id and its history entry, each checked for size. */
async function runAlone(name: string, input: Record<string, unknown>, largestOf: (call: CallRecord) => string): Promise<{ call: CallRecord; entry: HistoryEntry }> {
  const sessionId = await api.session({ permissionMode: 'bypassPermissions' })
  const scheduleId = await api.accept(sessionId, [{ id: 'big', name, input }])
  await api.finished(scheduleId)
  const reply = await rawReply(`/schedules/${scheduleId}`)
  const call = (JSON.parse(reply) as ScheduleReply).calls[0] as CallRecord
  expect(call.status, JSON.stringify(call.result?.error)).toBe('succeeded')
  expectAboutOnce(reply, largestOf(call))
  const history = await rawReply(`/sessions/${sessionId}/history`)
  expectAboutOnce(history, largestOf(call))
  const [entry] = (JSON.parse(history) as { entries: HistoryEntry[] }).entries
  // The history entry carries the result as the record does.
  expect(entry?.modelContent).toEqual(call.modelContent)
  expect(entry?.result).toEqual(call.result)
  return { call, entry: entry as HistoryEntry }
}

interface CommandOutputView {
  output: string
  totalBytes: number
  omitted?: { bytes: number; headLength: number }
}

/** The text of the artifact a `toolexec-artifact://<sessionId>/<artifactId>` URI names, from GET /artifacts. */
async function artifactText(uri: string | undefined): Promise<string> {
  const match = /^toolexec-artifact:\/\/([^/]+)\/([^/]+)$/.exec(uri ?? '')
  expect(match, uri).not.toBeNull()
  return rawReply(`/artifacts/${match?.[1]}/${match?.[2]}`)
}

/** A command's kept output put back together as the CallResult schema describes. */
function keptOutput(result: CallResult): { kept: string; head: string; tail: string } {
  const output = result.output as CommandOutputView
  const display = result.display as BashOutputDisplay
  const kept = result.outputRestInDisplay === true ? output.output + display.output : output.output
  const omitted = output.omitted
  if (omitted === undefined) return { kept, head: kept, tail: '' }
  const head = kept.slice(0, omitted.headLength)
  const marker = omissionMarker(omitted.bytes)
  expect(kept.slice(omitted.headLength, omitted.headLength + marker.length)).toBe(marker)
  return { kept, head, tail: kept.slice(omitted.headLength + marker.length) }
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

  it("R37 a Read of a 1 MB file: its text is the record's modelContent, once; the result says the output is the same", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${'abcdefghij'.repeat(4)}`)
    await mkdir(path.join(s.dataDir, 'read'), { recursive: true })
    await writeFile(path.join(s.dataDir, 'read', 'big.txt'), lines.join('\n'))
    const { call } = await runAlone('Read', { file_path: 'read/big.txt', offset: 1, limit: 20_000 }, (record) => textOf(record.modelContent))
    const text = textOf(call.modelContent)
    // The window stops at Read's 256,000-byte limit: a quarter of the file, numbered.
    expect(text.length).toBeGreaterThan(250_000)
    expect(text.startsWith('     1\tline 0 abcdefghij')).toBe(true)
    expect(text).toContain('the output stopped at its size limit')
    expect(call.result).not.toHaveProperty('modelContent')
    expect(call.result).not.toHaveProperty('output')
    expect(call.result?.outputIsModelContent).toBe(true)
  })

  it('R37 R38 a Bash printing 1 MB: the kept head and tail once, across output.output and display.output; the whole in the artifact', async () => {
    const printed = Array.from({ length: 160_000 }, (_, i) => `${i + 1}\n`).join('')
    expect(printed.length).toBeGreaterThan(1_000_000)
    const { call } = await runAlone('Bash', { command: 'seq 1 160000' }, (record) => keptOutput(record.result as CallResult).kept)
    const result = call.result as CallResult
    expect(result).not.toHaveProperty('modelContent')
    expect(result.outputRestInDisplay).toBe(true)
    const output = result.output as CommandOutputView
    expect(output.totalBytes).toBe(printed.length)
    expect(result.display).toMatchObject({ kind: 'bash_output', truncated: true, originalBytes: printed.length })
    const display = result.display as BashOutputDisplay
    // The display keeps the last 150,000 bytes: the end of what was printed.
    expect(display.output.length).toBe(150_000)
    expect(printed.endsWith(display.output)).toBe(true)
    // The kept text is the printed head and tail around the marker, as the tool recorded it.
    const { head, tail } = keptOutput(result)
    expect(head.length).toBe(16 * 1024)
    expect(printed.startsWith(head)).toBe(true)
    expect(tail.length).toBeGreaterThan(display.output.length)
    expect(printed.endsWith(tail)).toBe(true)
    expect(output.omitted?.bytes).toBe(printed.length - head.length - tail.length)
    // The model reads an envelope of its own: a different, short text.
    expect(textOf(call.modelContent)).toMatch(/^<persisted-output>\nOutput too large/)
    expect(textOf(call.modelContent).length).toBeLessThan(12_000)
    expect(await artifactText(result.serialization.artifactUri)).toBe(printed)
  })

  it("R37 a Bash printing 23 KB: the printed text once, as the record's modelContent; output.output keeps what follows it", async () => {
    const printed = Array.from({ length: 5_000 }, (_, i) => `${i + 1}\n`).join('')
    expect(printed.length).toBeGreaterThan(20_000)
    const { call } = await runAlone('Bash', { command: 'seq 1 5000' }, (record) => textOf(record.modelContent))
    const result = call.result as CallResult
    expect(result.outputAfterModelContent).toBe(true)
    expect(result.output).toMatchObject({ exitCode: 0, totalBytes: printed.length })
    // The tool's text, put back together as the CallResult schema describes.
    expect(textOf(call.modelContent) + (result.output as CommandOutputView).output).toBe(printed)
  })

  it("R37 a Grep with 1.3 MB of matches: its full output once, the model's envelope apart; the whole in the artifact too", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${'abcdefghij'.repeat(4)}`)
    await mkdir(path.join(s.dataDir, 'grep'), { recursive: true })
    await writeFile(path.join(s.dataDir, 'grep', 'big.txt'), lines.join('\n'))
    const { call } = await runAlone('Grep', { pattern: 'line', path: 'grep', output_mode: 'content', '-n': true }, (record) => String(record.result?.output))
    const result = call.result as CallResult
    const expected = lines.map((line, i) => `grep/big.txt:${i + 1}:${line}`).join('\n')
    expect(result.output).toBe(expected)
    expect(result).not.toHaveProperty('modelContent')
    expect(result.outputIsModelContent).toBeUndefined()
    expect(textOf(call.modelContent)).toMatch(/^<persisted-output>\nOutput too large/)
    expect(textOf(call.modelContent).length).toBeLessThan(5_000)
    expect(await artifactText(result.serialization.artifactUri)).toBe(expected)
  })
})
