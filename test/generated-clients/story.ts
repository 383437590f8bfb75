/**
 * What both consumers do and print, whichever generator made their client: the calls of one
 * model reply, a Read and an Edit of a real file; the Edit waits for approval and is allowed.
 */
export const CALLS = [
  { id: 'read-1', name: 'Read', input: { file_path: 'notes.txt' } },
  { id: 'edit-1', name: 'Edit', input: { file_path: 'notes.txt', old_string: 'draft', new_string: 'final' } },
]

export interface Outcome {
  readonly sessionStatus: string | undefined
  /** Event types in the order they first came. */
  readonly eventTypes: string[]
  readonly askedFor: string | undefined
  readonly answeredBy: string | undefined
  /** Call id -> the modelContent its ToolCallResult event carried. */
  readonly streamedResults: Record<string, unknown>
  readonly scheduleStatus: string | undefined
  /** Call id -> status and modelContent in the schedule read at the end. */
  readonly records: Record<string, unknown>
  readonly unknownScheduleCode: string | undefined
  /** A schedule for a session never created: its error code, and the session it names not made. */
  readonly unknownSessionCode: string | undefined
  /** A schedule whose createSession made its session: that session's permission mode. */
  readonly createdSessionMode: string | undefined
}

export function settings(): { baseUrl: string; token: string; sessionId: string } {
  const [baseUrl, token, sessionId] = process.argv.slice(2)
  if (baseUrl === undefined || token === undefined || sessionId === undefined) throw new Error('usage: consumer <base url> <token> <session id>')
  return { baseUrl, token, sessionId }
}

export function firstSeen(types: string[], type: string): void {
  if (!types.includes(type)) types.push(type)
}
