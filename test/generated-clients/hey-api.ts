/** A consumer of the @hey-api/openapi-ts SDK; events through its own Server-Sent Events client. */
import { client } from './hey/client.gen.js'
import { answerPermission, createSchedule, createSession, getSchedule, getSession, streamEvents } from './hey/index.js'
import { CALLS, firstSeen, settings, type Outcome } from './story.js'

const { baseUrl, token, sessionId } = settings()
client.setConfig({ baseUrl, headers: { authorization: `Bearer ${token}` } })

const created = await createSession({ body: { id: sessionId, permissionMode: 'default' } })
const stop = new AbortController()
const { stream } = await streamEvents({ path: { id: sessionId }, signal: stop.signal, sseMaxRetryAttempts: 1 })
const accepted = await createSchedule({ body: { sessionId, calls: CALLS } })
const scheduleId = accepted.data?.scheduleId

const eventTypes: string[] = []
const streamedResults: Record<string, unknown> = {}
let askedFor: string | undefined
let answeredBy: string | undefined
for await (const event of stream) {
  firstSeen(eventTypes, event.type)
  if (event.type === 'PermissionRequested') {
    askedFor = event.toolName
    const answered = await answerPermission({ path: { id: event.permissionId }, body: { decision: 'allow' } })
    answeredBy = answered.data?.decidedBy
  } else if (event.type === 'ToolCallResult') {
    streamedResults[event.callId] = event.result.modelContent
  } else if (event.type === 'ScheduleCompleted' && event.scheduleId === scheduleId) {
    break
  }
}
stop.abort()

const schedule = await getSchedule({ path: { id: scheduleId ?? '' }, query: { wait: 5 } })
// Without ?format= the reply is the records (`Schedule`); the other members of the union are the model-API shapes.
const calls = schedule.data !== undefined && 'calls' in schedule.data ? schedule.data.calls : []
const records = Object.fromEntries(calls.map((call) => [call.id, { status: call.status, modelContent: call.modelContent }]))
const missing = await getSchedule({ path: { id: 'sch_missing' } })
const typo = await createSchedule({ body: { sessionId: `${sessionId}-typo`, calls: [] } })
await createSchedule({ body: { sessionId: `${sessionId}-new`, createSession: { permissionMode: 'plan' }, calls: [] } })
const made = await getSession({ path: { id: `${sessionId}-new` } })

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
