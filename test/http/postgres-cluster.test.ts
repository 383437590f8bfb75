/**
 * Issue 26: three servers on one PostgreSQL database, each a child process on 127.0.0.1, form
 * a cluster: any node answers a session's requests (the owner carries out its changes), a
 * client streams from any node and resumes on another with nothing lost or doubled, and when
 * the owner dies (SIGKILL), pauses past its lease (SIGSTOP) or stops (SIGTERM), another node
 * takes its sessions over: running calls end interrupted and never run twice, pending approvals
 * stay answerable, queued schedules go on, and a paused former owner writes nothing after.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import pg from 'pg'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import type { PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply, Session } from '../../src/contracts/api.js'
import { INTERRUPTED_TEXT } from '../../src/sessions/recovery.js'
import { killWrittenPid, modelText, outputShows, runCall, startInBackground } from '../support/background-calls.js'
import { readAllEvents, spawnCrashServer, type CrashChild, type SseFrame } from '../support/crash-child.js'
import { runKey, runsByCall } from '../support/crash-tools.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { startPrivatePostgres } from '../support/private-postgres.js'
import { freshDatabaseUrl } from '../support/test-database.js'
import { until } from '../support/until.js'

const LEASE_MS = 2_000
/** A lease runs out, then a sweep (every lease time) or a request finds it: adoption within this. */
const ADOPTION_MS = 2 * LEASE_MS + 3_000

interface Cluster {
  readonly nodes: CrashChild[]
  readonly workspace: string
  readonly markerDir: string
  /** The artifact directory every node is given (TOOLEXEC_ARTIFACT_DIR). */
  readonly artifactDir: string
  readonly databaseUrl: string
}

const running: CrashChild[] = []

async function startCluster(names: readonly string[], url?: string, extraEnv: Readonly<Record<string, string>> = {}): Promise<Cluster> {
  const databaseUrl = url ?? (await freshDatabaseUrl())
  if (databaseUrl === undefined) throw new Error('this suite runs only in the postgres project')
  const workspace = tempDirSync('cluster-workspace')
  const markerDir = tempDirSync('cluster-runs')
  const artifactDir = tempDirSync('cluster-artifacts')
  const nodes: CrashChild[] = []
  for (const name of names) {
    const env = { CRASH_NODE_ID: name, CRASH_LEASE_MS: String(LEASE_MS), CRASH_WORKSPACE: workspace, CRASH_ARTIFACT_DIR: artifactDir, CRASH_LOG_LEVEL: 'info', ...extraEnv }
    const node = await spawnCrashServer(tempDirSync(`cluster-${name}`), markerDir, { databaseUrl, env })
    running.push(node)
    nodes.push(node)
  }
  return { nodes, workspace, markerDir, artifactDir, databaseUrl }
}

afterEach(async () => {
  for (const node of running.splice(0)) {
    if (node.process.signalCode === null && node.process.exitCode === null) node.process.kill('SIGCONT')
    await node.kill()
  }
})

const node = (cluster: Cluster, index: number): CrashChild => cluster.nodes[index] as CrashChild
const read = (id: string, extra: object = {}) => ({ id, name: 'Read', input: { file_path: `${id}.txt` }, ...extra })
const edit = (id: string) => ({ id, name: 'Edit', input: { file_path: `${id}.txt` } })
/** Edits of one file: a project rule granted for one covers the others. */
const editShared = (id: string) => ({ id, name: 'Edit', input: { file_path: 'shared.txt' } })
const waitForFile = (id: string, file: string) => ({ id, name: 'WaitForFile', input: { path: file } })

/** Posted again while the cluster answers 503 (PostgreSQL restarting), as a client retries after Retry-After. */
async function postOnceAccepted(server: CrashChild, sessionId: string, calls: object[]): Promise<string> {
  const accepted = await until(
    async () => {
      const reply = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, calls })
      if (reply.status === 503) return undefined
      expect(reply.status).toBe(202)
      return reply.body.scheduleId
    },
    'the cluster to take the schedule',
    10_000,
    100,
  )
  return accepted
}

async function post(server: CrashChild, sessionId: string, calls: object[]): Promise<string> {
  const reply = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, calls })
  expect(reply).toMatchObject({ status: 202 })
  return reply.body.scheduleId
}

async function createSession(server: CrashChild, id: string, body: object = {}): Promise<void> {
  expect((await server.json('POST', '/sessions', { id, ...body })).status).toBe(201)
}

async function scheduleOf(server: CrashChild, id: string): Promise<ScheduleReply> {
  return (await server.json<ScheduleReply>('GET', `/schedules/${id}`)).body
}

async function ended(server: CrashChild, id: string, timeoutMs = 10_000): Promise<ScheduleReply> {
  return until(
    async () => {
      const schedule = await scheduleOf(server, id)
      return schedule.status === 'completed' || schedule.status === 'cancelled' ? schedule : undefined
    },
    `schedule ${id} to end`,
    timeoutMs,
    50,
  )
}

async function lastEventId(server: CrashChild, sessionId: string): Promise<number> {
  return (await server.json<Session>('GET', `/sessions/${sessionId}`)).body.lastEventId
}

async function pendingFor(server: CrashChild, callId: string): Promise<PermissionRequestRecord | undefined> {
  const reply = await server.json<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?status=pending')
  return reply.body.requests.find((request) => request.callId === callId)
}

/** The session's events from `after` on as one node streams them, resuming with Last-Event-ID, up to `lastSeq`. */
function streamFrom(server: CrashChild, sessionId: string, after: number, lastSeq: number): Promise<SseFrame[]> {
  if (after === 0) return readAllEvents(server.url, sessionId, lastSeq, 10_000)
  return stream(server, sessionId, after, (frames) => (frames.at(-1)?.id ?? 0) >= lastSeq)
}

/** The session's events from the start, live, until its schedule completes. */
function streamUntilEnd(server: CrashChild, sessionId: string): Promise<SseFrame[]> {
  return stream(server, sessionId, 0, (frames) => frames.at(-1)?.event === 'ScheduleCompleted')
}

async function stream(server: CrashChild, sessionId: string, after: number, done: (frames: readonly SseFrame[]) => boolean): Promise<SseFrame[]> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(new Error(`events of ${sessionId} stopped early`)), 10_000)
  const frames: SseFrame[] = []
  try {
    const response = await fetch(`${server.url}/sessions/${sessionId}/events`, { headers: { 'last-event-id': String(after) }, signal: controller.signal })
    if (response.status !== 200) throw new Error(`events of ${sessionId} answered ${response.status}: ${await response.text()}`)
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of response.body ?? []) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true })
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const frame = frameOf(buffered.slice(0, end))
        buffered = buffered.slice(end + 2)
        if (frame !== undefined) frames.push(frame)
      }
      if (done(frames)) break
    }
  } finally {
    clearTimeout(timer)
    controller.abort()
  }
  return frames
}

function frameOf(text: string): SseFrame | undefined {
  const id = /^id: (\d+)$/m.exec(text)?.[1]
  const event = /^event: (.+)$/m.exec(text)?.[1]
  const data = /^data: (.+)$/m.exec(text)?.[1]
  return id === undefined || event === undefined || data === undefined ? undefined : { id: Number(id), event, data: JSON.parse(data) as Record<string, unknown> }
}

async function toolNames(server: CrashChild): Promise<string[]> {
  return (await server.json<{ tools: { name: string }[] }>('GET', '/tools')).body.tools.map((tool) => tool.name)
}

const ids = (frames: readonly SseFrame[]): number[] => frames.map((frame) => frame.id)
const oneToN = (n: number): number[] => Array.from({ length: n }, (_, index) => index + 1)

describe('a cluster of three servers on one PostgreSQL database (issue 26)', { timeout: 60_000 }, () => {
  it('lists its nodes on each; any node takes schedules for a session, the owner runs them, and every node streams its events in order', async () => {
    const cluster = await startCluster(['a', 'b', 'c'])
    for (const server of cluster.nodes) {
      const listed = await server.json<{ self: string; nodes: { id: string; live: boolean }[] }>('GET', '/cluster')
      expect(listed.body.nodes.map((entry) => [entry.id, entry.live])).toEqual([
        ['a', true],
        ['b', true],
        ['c', true],
      ])
    }
    for (const name of ['one.txt', 'two.txt', 'three.txt']) writeFileSync(path.join(cluster.workspace, name), name)
    await createSession(node(cluster, 0), 'shared')
    // Round robin: b and c pass their requests on to a, which holds the session's lease.
    const schedules: string[] = []
    for (const [index, file] of ['one', 'two', 'three', 'one', 'two', 'three'].entries()) {
      schedules.push(await post(node(cluster, index % 3), 'shared', [read(`${file}-${index}`, { input: { file_path: `${file}.txt` } })]))
    }
    for (const id of schedules) expect((await ended(node(cluster, 1), id)).calls.map((call) => call.status)).toEqual(['succeeded'])
    // ?wait=N on a node that does not run the session ends with the schedule, not with N.
    const waitedFor = post(node(cluster, 2), 'shared', [read('waited', { input: { file_path: 'one.txt' } })])
    const begun = Date.now()
    const waited = await node(cluster, 1).json<ScheduleReply>('GET', `/schedules/${await waitedFor}?wait=20`)
    expect([waited.body.status, Date.now() - begun < 10_000]).toEqual(['completed', true])
    const last = await lastEventId(node(cluster, 2), 'shared')
    expect(last).toBe(7 * 6)
    const fromA = await streamFrom(node(cluster, 0), 'shared', 0, last)
    const fromB = await streamFrom(node(cluster, 1), 'shared', 0, last)
    expect(ids(fromA)).toEqual(oneToN(last))
    expect(fromB).toEqual(fromA)
    // A client that read half on b resumes on c: nothing lost, nothing doubled.
    const rest = await streamFrom(node(cluster, 2), 'shared', 21, last)
    expect(rest).toEqual(fromA.slice(21))
    // Every call ran once, on the owner.
    const runs = runsByCall(cluster.markerDir)
    for (const [index, file] of ['one', 'two', 'three', 'one', 'two', 'three'].entries()) expect(runs.get(runKey('shared', `${file}-${index}`))).toEqual([node(cluster, 0).process.pid])
  })

  it('streams live from a node that does not run the session, and takes an approval answered on a third node', async () => {
    const cluster = await startCluster(['a', 'b', 'c'])
    await createSession(node(cluster, 0), 'approve', { permissionMode: 'default', interactive: true })
    const live = streamUntilEnd(node(cluster, 1), 'approve')
    const scheduleId = await post(node(cluster, 2), 'approve', [edit('needs-yes')])
    const request = await until(() => pendingFor(node(cluster, 1), 'needs-yes'), 'the approval on another node')
    expect((await node(cluster, 2).json('POST', `/permissions/${request.id}`, { decision: 'allow' })).status).toBe(200)
    const schedule = await ended(node(cluster, 1), scheduleId)
    expect(schedule.calls.map((call) => call.status)).toEqual(['succeeded'])
    const frames = await live
    expect(ids(frames)).toEqual(oneToN(frames.length))
    expect(frames.map((frame) => frame.event)).toContain('PermissionRequested')
    expect(frames.map((frame) => frame.event)).toContain('PermissionResolved')
    expect(frames.at(-1)?.event).toBe('ScheduleCompleted')
    expect(runsByCall(cluster.markerDir).get(runKey('approve', 'needs-yes'))).toEqual([node(cluster, 0).process.pid])
  })

  it('a project rule granted on one node applies at once on another, and its removal on a third too', async () => {
    const cluster = await startCluster(['a', 'b', 'c'])
    const [first, second, third] = cluster.nodes as [CrashChild, CrashChild, CrashChild]
    await createSession(first, 'grants', { permissionMode: 'default', interactive: true })
    await createSession(second, 'follows', { permissionMode: 'default', interactive: true })
    // b reads the workspace's project rules (none yet) for its own session, and asks.
    const asked = await post(second, 'follows', [editShared('before-grant')])
    const before = await until(() => pendingFor(third, 'before-grant'), 'the first approval on b')
    expect((await third.json('POST', `/permissions/${before.id}`, { decision: 'deny' })).status).toBe(200)
    await ended(second, asked)
    // Granted for the project on a's session, answered on c.
    const granting = await post(third, 'grants', [editShared('grant')])
    const grant = await until(() => pendingFor(second, 'grant'), 'the approval on a')
    expect((await second.json('POST', `/permissions/${grant.id}`, { decision: 'allow', scope: 'project' })).status).toBe(200)
    await ended(first, granting)
    const [rule] = (await third.json<{ rules: { id: string }[] }>('GET', '/permissions/rules')).body.rules
    expect(rule).toBeDefined()
    // b's session now runs Edit without asking: b read the rules again when a added one.
    const allowed = await post(second, 'follows', [editShared('after-grant')])
    expect((await ended(third, allowed)).calls.map((call) => call.status)).toEqual(['succeeded'])
    // Removed on c: b asks again.
    expect((await third.json('DELETE', `/permissions/rules/${rule?.id ?? ''}`)).status).toBe(204)
    const askedAgain = await post(second, 'follows', [editShared('after-removal')])
    expect(await until(() => pendingFor(first, 'after-removal'), 'the approval after the removal')).toMatchObject({ callId: 'after-removal' })
    expect((await scheduleOf(first, askedAgain)).status).toBe('running')
  })

  it('after SIGKILL of the owner another node adopts its sessions: the running call ends interrupted, never run twice; the approval stays answerable; the queued schedule runs; a background task is lost', async () => {
    const cluster = await startCluster(['a', 'b', 'c'], undefined, { CRASH_BACKGROUND_TASKS: '1' })
    const [owner, second, third] = cluster.nodes as [CrashChild, CrashChild, CrashChild]
    writeFileSync(path.join(cluster.workspace, 'after.txt'), 'after')
    await createSession(owner, 'busy')
    await createSession(owner, 'asks', { permissionMode: 'default', interactive: true })
    await createSession(owner, 'tasks', { permissionMode: 'bypassPermissions' })
    const pidFile = path.join(cluster.markerDir, 'sleep.pid')
    onTestFinished(() => killWrittenPid(pidFile))
    // Posted to c, run by a, which holds the session's lease.
    const taskId = await startInBackground(third, 'tasks', `echo $$ > ${pidFile}; echo started; exec sleep 300`)
    await outputShows(third, 'tasks', taskId, 'started')
    const release = path.join(cluster.workspace, 'release-never')
    const runningId = await post(second, 'busy', [waitForFile('hangs', release)])
    const queuedId = await post(third, 'busy', [read('after')])
    const askingId = await post(second, 'asks', [edit('asked')])
    await until(async () => ((await scheduleOf(third, runningId)).calls[0]?.status === 'running' ? true : undefined), 'the call to run on a')
    const pending = await until(() => pendingFor(third, 'asked'), 'the approval')
    const killedAt = Date.now()
    await owner.kill()
    const interrupted = await ended(second, runningId, ADOPTION_MS)
    expect(Date.now() - killedAt).toBeLessThan(ADOPTION_MS)
    expect(interrupted.calls.map((call) => call.status)).toEqual(['interrupted'])
    expect((await ended(third, queuedId)).calls.map((call) => call.status)).toEqual(['succeeded'])
    // The approval asked on a is answered on c after a died, and its call runs once, on the adopter.
    expect((await third.json('POST', `/permissions/${pending.id}`, { decision: 'allow' })).status).toBe(200)
    expect((await ended(second, askingId)).calls.map((call) => call.status)).toEqual(['succeeded'])
    const runs = runsByCall(cluster.markerDir)
    expect(runs.get(runKey('busy', 'hangs'))).toEqual([owner.process.pid])
    expect(runs.get(runKey('busy', 'after'))).toHaveLength(1)
    expect(runs.get(runKey('asks', 'asked'))).toHaveLength(1)
    expect(runs.get(runKey('asks', 'asked'))).not.toContain(owner.process.pid)
    for (const sessionId of ['busy', 'asks']) {
      const last = await lastEventId(second, sessionId)
      const frames = await streamFrom(third, sessionId, 0, last)
      expect(ids(frames)).toEqual(oneToN(last))
      if (sessionId === 'busy') {
        const result = frames.find((frame) => frame.event === 'ToolCallResult')?.data
        expect(result).toMatchObject({ callId: 'hangs', result: { status: 'interrupted' } })
        expect(JSON.stringify(result)).toContain(INTERRUPTED_TEXT)
      }
    }
    // No call runs in the session of the background task: a sweep adopts it for its running task, which it records lost.
    const lost = await until(
      async () => (await streamFrom(second, 'tasks', 0, await lastEventId(second, 'tasks'))).find((frame) => frame.event === 'BackgroundTaskLost'),
      'the task to be found lost',
      ADOPTION_MS,
      100,
    )
    expect(lost.data).toMatchObject({ taskId, nodeId: 'a', command: expect.stringContaining('sleep 300') as unknown })
    const output = modelText(await runCall(second, 'tasks', 'TaskOutput', { task_id: taskId }))
    expect(output).toContain('<status>lost</status>')
    expect(output).toContain(`<error>Task ${taskId} was lost: the server that ran it stopped (node a) before it ended; its output up to then is in ${String(lost.data.outputPath)}</error>`)
    expect(output).toContain('<output>\nstarted\n</output>')
    expect(modelText(await runCall(third, 'tasks', 'TaskStop', { task_id: taskId }))).toMatch(new RegExp(`^<tool_use_error>Task ${taskId} is not running \\(status: lost\\)`))
  })

  it('a former owner paused past its lease (SIGSTOP) and continued writes nothing after the takeover, and says so in its log', async () => {
    const cluster = await startCluster(['a', 'b'])
    const [owner, other] = cluster.nodes as [CrashChild, CrashChild]
    await createSession(owner, 'paused')
    const release = path.join(cluster.workspace, 'release-paused')
    const runningId = await post(owner, 'paused', [waitForFile('waits', release)])
    await until(async () => ((await scheduleOf(other, runningId)).calls[0]?.status === 'running' ? true : undefined), 'the call to run')
    owner.process.kill('SIGSTOP')
    const interrupted = await ended(other, runningId, ADOPTION_MS)
    expect(interrupted.calls.map((call) => call.status)).toEqual(['interrupted'])
    const lastAfterTakeover = await lastEventId(other, 'paused')
    // Its handler would now finish; continued, the former owner must not record it.
    writeFileSync(release, 'go')
    owner.process.kill('SIGCONT')
    await until(() => (/session lease lost/.test(owner.log()) ? true : undefined), 'the former owner to log its lost lease', 3 * LEASE_MS)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await lastEventId(other, 'paused')).toBe(lastAfterTakeover)
    const frames = await streamFrom(other, 'paused', 0, lastAfterTakeover)
    expect(ids(frames)).toEqual(oneToN(lastAfterTakeover))
    expect(frames.filter((frame) => frame.event === 'ToolCallResult').map((frame) => (frame.data.result as { status: string }).status)).toEqual(['interrupted'])
    // The session runs on: its next schedule, posted to the former owner, is carried out by the new one.
    writeFileSync(path.join(cluster.workspace, 'next.txt'), 'next')
    const nextId = await post(owner, 'paused', [read('next')])
    expect((await ended(other, nextId)).calls.map((call) => call.status)).toEqual(['succeeded'])
    expect(runsByCall(cluster.markerDir).get(runKey('paused', 'next'))).toEqual([other.process.pid])
  })

  it('keeps answering and streaming through a restart of PostgreSQL: the wake-ups reconnect, nothing is lost or doubled', async () => {
    const postgres = await startPrivatePostgres()
    try {
      const cluster = await startCluster(['a', 'b'], await postgres.createDatabase('cluster_restart'))
      const [owner, other] = cluster.nodes as [CrashChild, CrashChild]
      await createSession(owner, 'restarts')
      await ended(other, await post(other, 'restarts', [read('before')]))
      // Open on b across the restart: b's wake-ups connection is lost and made again.
      const before = await lastEventId(other, 'restarts')
      let replayed = false
      const live = stream(other, 'restarts', 0, (frames) => {
        replayed ||= frames.length >= before
        return frames.filter((frame) => frame.event === 'ScheduleCompleted').length === 2
      })
      // Restarted only once the stream is open and has replayed, so that the stream, not its opening, crosses the restart.
      await until(() => replayed || undefined, 'the stream to replay what came before')
      await postgres.restart('fast')
      await ended(other, await postOnceAccepted(other, 'restarts', [read('after')]))
      const frames = await live
      expect(ids(frames)).toEqual(oneToN(frames.length))
      expect(frames.filter((frame) => frame.event === 'ToolCallResult').map((frame) => frame.data.callId)).toEqual(['before', 'after'])
    } finally {
      for (const node of running.splice(0)) await node.kill()
      await postgres.stop()
    }
  })

  it('a server stopped with SIGTERM hands its sessions over at once, without waiting for its leases to run out', async () => {
    const cluster = await startCluster(['a', 'b'])
    const [owner, other] = cluster.nodes as [CrashChild, CrashChild]
    await createSession(owner, 'handed', { permissionMode: 'default', interactive: true })
    const askingId = await post(owner, 'handed', [edit('later')])
    const pending = await until(() => pendingFor(other, 'later'), 'the approval')
    owner.process.kill('SIGTERM')
    await new Promise((resolve) => owner.process.once('exit', resolve))
    const stoppedAt = Date.now()
    expect((await other.json('POST', `/permissions/${pending.id}`, { decision: 'allow' })).status).toBe(200)
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE_MS)
    expect((await ended(other, askingId)).calls.map((call) => call.status)).toEqual(['succeeded'])
  })

  it('serves an artifact saved on one node from another, with Range; a session deleted on one node ends its streams on the others', async () => {
    const cluster = await startCluster(['a', 'b'])
    const [owner, other] = cluster.nodes as [CrashChild, CrashChild]
    await createSession(owner, 'saved')
    const text = Array.from({ length: 200 }, (_, index) => `line ${index}: wörld ✓\n`).join('')
    const done = await ended(other, await post(other, 'saved', [{ id: 'big', name: 'Dump', input: { text } }]))
    const serialization = done.calls[0]?.result?.serialization
    expect(serialization?.persistedPath?.startsWith(path.join(cluster.artifactDir, 'saved'))).toBe(true)
    const artifact = `${other.url}/artifacts/saved/${(serialization?.artifactUri ?? '').split('/').pop() ?? ''}`
    const range = await fetch(artifact, { headers: { range: 'bytes=100-199' } })
    expect([range.status, range.headers.get('content-range')]).toEqual([206, `bytes 100-199/${Buffer.byteLength(text)}`])
    expect(Buffer.from(await range.arrayBuffer()).equals(Buffer.from(text).subarray(100, 200))).toBe(true)
    // A client streaming from the node that does not run the session sees it end when the owner deletes it.
    const last = await lastEventId(other, 'saved')
    let replayed = false
    const streamed = stream(other, 'saved', 0, (frames) => {
      replayed ||= frames.length === last
      return false
    })
    await until(() => replayed || undefined, 'the stream to catch up')
    expect((await other.json('DELETE', '/sessions/saved')).status).toBe(204)
    expect(ids(await streamed)).toEqual(oneToN(last))
    expect(existsSync(serialization?.persistedPath ?? '')).toBe(false)
    expect((await fetch(artifact)).status).toBe(404)
  })

  it('an HTTP tool added on one node is called on another and removed from all; a request for an unknown session leaves no lease', async () => {
    const endpoint = createServer((request, response) => {
      request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ content: 'ticket T-1 is open' })))
    })
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve))
    try {
      const cluster = await startCluster(['a', 'b'])
      const [first, second] = cluster.nodes as [CrashChild, CrashChild]
      const tool = { name: 'ticket_lookup', description: 'Looks up a ticket', inputSchema: { type: 'object' }, url: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/ticket` }
      expect((await first.json('POST', '/tools', tool)).status).toBe(201)
      await until(async () => ((await toolNames(second)).includes('ticket_lookup') ? true : undefined), 'the tool on the other node')
      await createSession(second, 'tickets', { permissionMode: 'bypassPermissions' })
      const looked = await ended(first, await post(first, 'tickets', [{ id: 'lookup', name: 'ticket_lookup', input: {} }]))
      expect(looked.calls.map((call) => [call.status, call.modelContent])).toEqual([['succeeded', 'ticket T-1 is open']])
      expect((await second.json('DELETE', '/tools/ticket_lookup')).status).toBe(204)
      await until(async () => ((await toolNames(first)).includes('ticket_lookup') ? undefined : true), 'the tool gone from the first node')
      // Posted for a session that was never created: 404, and no lease is left taken for it.
      expect((await first.json('POST', '/schedules', { sessionId: 'never-made', calls: [read('x')] })).status).toBe(404)
      const client = new pg.Client({ connectionString: cluster.databaseUrl })
      await client.connect()
      try {
        expect((await client.query('SELECT session_id FROM session_leases ORDER BY session_id')).rows).toEqual([{ session_id: 'tickets' }])
      } finally {
        await client.end()
      }
    } finally {
      endpoint.closeAllConnections()
      await new Promise((resolve) => endpoint.close(resolve))
    }
  })
})
