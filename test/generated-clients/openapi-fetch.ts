/** A consumer of the openapi-typescript types through openapi-fetch; events read from the raw stream. */
import createClient from 'openapi-fetch'
import type { components, paths } from './openapi.js'
import { CALLS, firstSeen, settings, type Outcome } from './story.js'

type SessionEvent = components['schemas']['SessionEvent']

// Every name of the union, checked against it by the compiler both ways.
const EVENT_TYPES: Record<SessionEvent['type'], true> = {
  ScheduleAccepted: true,
  BatchStarted: true,
  BatchCompleted: true,
  ToolCallStarted: true,
  PermissionRequested: true,
  PermissionResolved: true,
  ModelNetworkStatus: true,
  ToolCallProgress: true,
  ToolCallResult: true,
  HookRunStarted: true,
  HookRunCompleted: true,
  HookRunBlocked: true,
  HookRunFailed: true,
  ScheduleCompleted: true,
  BackgroundTaskLost: true,
}

function isSessionEvent(value: unknown): value is SessionEvent {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string' && Object.hasOwn(EVENT_TYPES, value.type)
}

/** The `data:` of each frame, as text. */
async function* frameData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true })
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n')
      buffer = buffer.slice(end + 2)
      const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart())
      if (data.length > 0) yield data.join('\n')
    }
  }
}

const { baseUrl, token, sessionId } = settings()
const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } })

const created = await api.POST('/sessions', { body: { id: sessionId, permissionMode: 'default' } })
const stop = new AbortController()
const stream = await api.GET('/sessions/{id}/events', { params: { path: { id: sessionId } }, parseAs: 'stream', signal: stop.signal })
if (stream.data === undefined || stream.data === null) throw new Error(`no event stream: ${stream.response.status}`)
const accepted = await api.POST('/schedules', { body: { sessionId, calls: CALLS } })
const scheduleId = accepted.data?.scheduleId

const eventTypes: string[] = []
const streamedResults: Record<string, unknown> = {}
let askedFor: string | undefined
let answeredBy: string | undefined
for await (const text of frameData(stream.data)) {
  const event: unknown = JSON.parse(text)
  if (!isSessionEvent(event)) throw new Error(`not an event of the contract: ${text}`)
  firstSeen(eventTypes, event.type)
  if (event.type === 'PermissionRequested') {
    askedFor = event.toolName
    const answered = await api.POST('/permissions/{id}', { params: { path: { id: event.permissionId } }, body: { decision: 'allow' } })
    answeredBy = answered.data?.decidedBy
  } else if (event.type === 'ToolCallResult') {
    streamedResults[event.callId] = event.result.modelContent
  } else if (event.type === 'ScheduleCompleted' && event.scheduleId === scheduleId) {
    break
  }
}
stop.abort()

const schedule = await api.GET('/schedules/{id}', { params: { path: { id: scheduleId ?? '' }, query: { wait: 5 } } })
// Without ?format= the reply is the records (`Schedule`); the other members of the union are the model-API shapes.
const calls = schedule.data !== undefined && 'calls' in schedule.data ? schedule.data.calls : []
const records = Object.fromEntries(calls.map((call) => [call.id, { status: call.status, modelContent: call.modelContent }]))
const missing = await api.GET('/schedules/{id}', { params: { path: { id: 'sch_missing' } } })
const typo = await api.POST('/schedules', { body: { sessionId: `${sessionId}-typo`, calls: [] } })
await api.POST('/schedules', { body: { sessionId: `${sessionId}-new`, createSession: { permissionMode: 'plan' }, calls: [] } })
const made = await api.GET('/sessions/{id}', { params: { path: { id: `${sessionId}-new` } } })

const outcome: Outcome = {
  sessionStatus: created.data?.status,
  eventTypes,
  askedFor,
  answeredBy,
  streamedResults,
  scheduleStatus: schedule.data?.status,
  records,
  unknownScheduleCode: missing.error?.error.code,
  unknownSessionCode: typo.error?.error.code,
  createdSessionMode: made.data?.permissionMode,
}
process.stdout.write(`${JSON.stringify(outcome)}\n`)
