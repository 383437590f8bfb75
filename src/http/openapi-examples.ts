/**
 * @module Request examples of the OpenAPI document, one per operation, from the README's
 * walkthrough: a session in a scratch workspace, a Write that asks for approval and a Read
 * after it, the approval allowed, the schedule read when it ends. Operations the walkthrough
 * does not reach continue the same story with the same ids.
 */
const SESSION = 'ses_0f4bd3a8-2c7e-4f0e-9a51-6d1f3c2b7e90'
const SCHEDULE = 'sch_019a7c3e-5b2d-7f41-8c6e-2a9d4b1f0c37'
const PERMISSION = 'perm_7c2e9b14-3a5f-4d8e-b061-9f4a2c7d1e35'

export interface OperationExample {
  readonly summary: string
  /** The JSON body, for an operation that takes one. */
  readonly body?: unknown
  /** A value for each path, query and header parameter, by name. */
  readonly parameters?: Readonly<Record<string, unknown>>
}

export const REQUEST_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  createSession: { summary: 'A session whose tools work in a scratch directory', body: { workspace: '/tmp/tmp.Xq3bV9kL2a' } },
  listSessions: { summary: 'The next page of ten sessions', parameters: { limit: 10, before: SESSION } },
  getSession: { summary: 'The session of the walkthrough', parameters: { id: SESSION } },
  updateSession: { summary: 'Name the session for the people who follow it in the console', parameters: { id: SESSION }, body: { label: 'Fix the login timeout' } },
  deleteSession: { summary: 'Delete the session once its work is done', parameters: { id: SESSION } },
  abortSession: { summary: 'Abort the running turn of the session', parameters: { id: SESSION } },
  getHistory: { summary: 'Every tool record of the session, with what the model received', parameters: { id: SESSION } },
  createSchedule: {
    summary: 'The tool calls of one model reply: Write asks for approval, Read runs after it',
    body: {
      sessionId: SESSION,
      calls: [
        { id: 'w1', name: 'Write', input: { file_path: 'hello.txt', content: 'hello\n' } },
        { id: 'r1', name: 'Read', input: { file_path: 'hello.txt' } },
      ],
    },
  },
  addScheduleCall: {
    summary: 'One more call streamed into an open schedule',
    parameters: { id: SCHEDULE },
    body: { id: 'r2', name: 'Read', input: { file_path: 'hello.txt' }, dependsOn: ['w1'] },
  },
  closeSchedule: { summary: 'No more calls for the open schedule', parameters: { id: SCHEDULE } },
  getSchedule: {
    summary: "The schedule held until it ends (10 s at most); with `format`, its results as the Messages API's next user message",
    parameters: { id: SCHEDULE, wait: 10, format: 'anthropic' },
  },
  answerPermission: { summary: 'Allow the Write', parameters: { id: PERMISSION }, body: { decision: 'allow' } },
  listPermissions: { summary: "The session's pending approval requests", parameters: { sessionId: SESSION, status: 'pending' } },
  deleteProjectRule: { summary: 'Remove a project grant', parameters: { id: 'rule_3e8a1c52-9d47-4b6f-a0e2-5c7b9d1f4a68' } },
  streamEvents: {
    summary: "The session's events from the start; a reconnecting client sends the last id it got instead",
    parameters: { id: SESSION, after: 0, 'last-event-id': 12 },
  },
  getArtifact: {
    summary: "A saved output of the session's Read",
    parameters: { sessionId: SESSION, artifactId: 'r1-tool-result-5d0b6e2a-7c1f-4e93-b8a4-0f2d9c6e1b73.txt' },
  },
  addHttpTool: {
    summary: 'The ticket lookup tool of the README, added while the server runs',
    body: {
      name: 'ticket_lookup',
      description: 'Looks up a ticket by id',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      readOnly: true,
      concurrentSafe: true,
      url: 'http://127.0.0.1:9000/tools/ticket',
    },
  },
  listTools: { summary: 'The tools as the `tools` parameter of the Messages API', parameters: { format: 'anthropic' } },
  deleteHttpTool: { summary: 'Remove the ticket lookup tool', parameters: { name: 'ticket_lookup' } },
  createKey: {
    summary: 'A key for an agent app: its own sessions, under one directory, for a month',
    body: { name: 'ci-agent', role: 'agent', workspaces: ['/srv/agents/ci'], expiresAt: '2026-12-31T00:00:00Z' },
  },
  revokeKey: { summary: 'Revoke the agent app’s key', parameters: { id: 'key_5b1e7c2a-8d4f-4a36-9e0b-7c3d2f1a6e84' } },
  listAudit: {
    summary: 'The approvals one key answered in the session on one day, the page after entry 120',
    parameters: {
      kind: 'approval.answered',
      actor: 'key_5b1e7c2a-8d4f-4a36-9e0b-7c3d2f1a6e84',
      sessionId: SESSION,
      since: '2026-12-05T00:00:00.000Z',
      until: '2026-12-06T00:00:00.000Z',
      after: 120,
      limit: 50,
    },
  },
  createSessionLink: { summary: 'A link to approve from a phone, for an hour', parameters: { id: SESSION }, body: { purpose: 'decide', expiresInSeconds: 3600 } },
  revokeSessionLink: { summary: 'Revoke the phone’s link', parameters: { id: SESSION, linkId: 'link_0c6e2f4a-7b1d-4e8a-9c3f-5d2b1a7e6f90' } },
}
