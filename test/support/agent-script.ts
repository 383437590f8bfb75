/**
 * The conversation the fake model servers script for the example agent loops, and the check
 * of what a loop sends back against toolexec's own record of each call.
 */
import assert from 'node:assert/strict'

/** A 1x1 PNG for the scripted Read of an image. */
export const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')
/** Files the scripted turns read: the test writes them into the session's workspace. */
export const WORKSPACE_FILES: Record<string, string | Buffer> = { 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'pixel.png': PIXEL_PNG }
export const WRITTEN_FILE = 'notes.txt'
/** With an escape sequence (C1 CSI, erase line) that the loops must not send raw to the terminal. */
export const WRITTEN_TEXT = 'notes from the agent \u009b2K\u001b[2K\n'
export const FINAL_ANSWER = 'Done: read a.txt and b.txt, wrote notes.txt, ran seq and looked at pixel.png.'

export interface ScriptedCall {
  readonly id: string
  readonly name: string
  readonly input: Record<string, unknown>
  /** Sent instead of JSON.stringify(input) where the wire carries a JSON string (OpenAI): not valid JSON. */
  readonly rawArguments?: string
}

/**
 * Six turns: two parallel Reads; a Write that asks; a malformed call with a valid one; a Bash
 * whose output is saved as an artifact; a Read of an image; then (turn 6, no calls) the answer.
 * Where arguments travel as a JSON string the malformed call's string is cut short; where they
 * travel as an object (Anthropic) its input fails the tool's schema.
 */
export function scriptedTurns(idPrefix: string, malformed: 'json' | 'schema'): ScriptedCall[][] {
  const id = (turn: number, n: number): string => `${idPrefix}${turn}${n}x${Math.random().toString(36).slice(2, 10)}`
  const broken: ScriptedCall =
    malformed === 'json' ? { id: id(3, 1), name: 'Read', input: {}, rawArguments: '{"file_path": "a.txt", "limit": ' } : { id: id(3, 1), name: 'Read', input: { path: 'a.txt', limit: 'all' } }
  return [
    [
      { id: id(1, 1), name: 'Read', input: { file_path: 'a.txt' } },
      { id: id(1, 2), name: 'Read', input: { file_path: 'b.txt' } },
    ],
    [{ id: id(2, 1), name: 'Write', input: { file_path: WRITTEN_FILE, content: WRITTEN_TEXT } }],
    [broken, { id: id(3, 2), name: 'Read', input: { file_path: WRITTEN_FILE } }],
    [{ id: id(4, 1), name: 'Bash', input: { command: 'seq 1 40000', description: 'Print many numbers' } }],
    [{ id: id(5, 1), name: 'Read', input: { file_path: 'pixel.png' } }],
  ]
}

/** Which turn a request asks for: the one after the last scripted turn whose call ids it answers. */
export function turnOf(turns: readonly ScriptedCall[][], answeredIds: ReadonlySet<string>): number {
  let turn = 0
  turns.forEach((calls, index) => {
    if (calls.some((call) => answeredIds.has(call.id))) turn = index + 1
  })
  return turn
}

/** One tool result as the model API carried it back, reduced to what toolexec's record says. */
export interface ReturnedResult {
  readonly id: string
  /** The texts in order: a string content is one text. */
  readonly texts: readonly string[]
  readonly images: readonly { mediaType: string; data: string }[]
  /** Where the wire has an error flag (Anthropic's is_error); undefined where it has none. */
  readonly isError?: boolean
}

interface HistoryEntry {
  callId: string
  isError: boolean
  modelContent: string | ({ type: 'text'; text: string } | { type: 'image'; mediaType: string; data?: string; artifactUri?: string })[]
}

export interface ToolexecAccess {
  readonly url: string
  readonly token: string
}

/** Every call toolexec has recorded, by id, across its sessions. */
export async function recordedCalls(toolexec: ToolexecAccess): Promise<Map<string, HistoryEntry>> {
  const { sessions } = await getJson<{ sessions: { id: string }[] }>(toolexec, '/sessions')
  const calls = new Map<string, HistoryEntry>()
  for (const session of sessions) {
    const { entries } = await getJson<{ entries: HistoryEntry[] }>(toolexec, `/sessions/${session.id}/history`)
    for (const entry of entries) calls.set(entry.callId, entry)
  }
  return calls
}

/**
 * Compares the results of one scripted turn, as the loop sent them back, with toolexec's record
 * (byte for byte, ids, order, error flags, images): each difference is one line of the answer.
 */
export async function resultMismatches(toolexec: ToolexecAccess, calls: readonly ScriptedCall[], returned: readonly ReturnedResult[]): Promise<string[]> {
  const ids = returned.map((result) => result.id)
  const expectedIds = calls.map((call) => call.id)
  if (JSON.stringify(ids) !== JSON.stringify(expectedIds)) return [`results for ${JSON.stringify(ids)}, expected ${JSON.stringify(expectedIds)} in that order`]
  const recorded = await recordedCalls(toolexec)
  const mismatches: string[] = []
  for (const result of returned) {
    const entry = recorded.get(result.id)
    if (entry === undefined) {
      mismatches.push(`${result.id}: toolexec has no record of this call`)
      continue
    }
    const expected = await expectedResult(toolexec, entry)
    try {
      assert.deepEqual(result.texts, expected.texts)
      assert.deepEqual(result.images, expected.images)
      if (result.isError !== undefined) assert.equal(result.isError, entry.isError)
    } catch (error) {
      mismatches.push(`${result.id}: ${(error as Error).message}`)
    }
  }
  return mismatches
}

async function expectedResult(toolexec: ToolexecAccess, entry: HistoryEntry): Promise<Omit<ReturnedResult, 'id'>> {
  if (typeof entry.modelContent === 'string') return { texts: [entry.modelContent], images: [] }
  const texts: string[] = []
  const images: { mediaType: string; data: string }[] = []
  for (const block of entry.modelContent) {
    if (block.type === 'text') texts.push(block.text)
    else images.push({ mediaType: block.mediaType, data: block.data ?? (await artifactBase64(toolexec, block.artifactUri)) })
  }
  return { texts, images }
}

async function artifactBase64(toolexec: ToolexecAccess, uri: string | undefined): Promise<string> {
  const match = /^toolexec-artifact:\/\/([^/]+)\/(.+)$/.exec(uri ?? '')
  if (match === null) throw new Error(`an image block with neither data nor an artifact: ${uri}`)
  const response = await fetch(`${toolexec.url}/artifacts/${match[1]}/${match[2]}`, { headers: { authorization: `Bearer ${toolexec.token}` } })
  if (!response.ok) throw new Error(`artifact ${uri}: ${response.status}`)
  return Buffer.from(await response.arrayBuffer()).toString('base64')
}

export async function getJson<T>(toolexec: ToolexecAccess, route: string): Promise<T> {
  const response = await fetch(`${toolexec.url}${route}`, { headers: { authorization: `Bearer ${toolexec.token}` } })
  if (!response.ok) throw new Error(`toolexec GET ${route}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}
