/**
 * A full disk loses nothing: a real server whose data directory is a small tmpfs (the test
 * machines run as root) is filled mid-run. Calls that ran keep their results (written when
 * space returns), new work is refused with 507 API_ERR_STORAGE_FULL, abort and DELETE work
 * while full (a DELETE also when the WAL cannot start over: it spends the space reserve,
 * made again once space returns), a Bash whose output the disk cut does not succeed, an artifact is whole or
 * absent, the server recovers without a restart, and after one nothing is `interrupted`.
 */
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleReply } from '../../src/contracts/api.js'
import { defineTool, type ToolEntry } from '../../src/contracts/tool-entry.js'
import { RESERVE_BYTES, RESERVE_FILE } from '../../src/storage/storage-reserve.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { sleepTool } from '../support/tools.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'
import { textOf } from '../support/model-text.js'

const TMPFS_MB = 96
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

const mountPoint = path.join(os.tmpdir(), `toolexec-full-${process.pid}`)
const workspace = path.join(os.tmpdir(), `toolexec-full-ws-${process.pid}`)
const dataDir = path.join(mountPoint, 'data')
const filler = path.join(mountPoint, 'filler')

/** Writes into the filler until the tmpfs refuses a single byte more. */
function fillDisk(): void {
  const fd = openSync(filler, 'a')
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size, 1)
      for (;;) {
        try {
          writeSync(fd, chunk)
        } catch (error) {
          if ((error as { code?: string }).code === 'ENOSPC') break
          throw error
        }
      }
    }
  } finally {
    closeSync(fd)
  }
}

/** The checkpoint worker closes its connection a moment after the server: a busy mount is tried again, then detached. */
async function unmount(): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      execFileSync('umount', [mountPoint], { stdio: 'ignore' })
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  execFileSync('umount', ['-l', mountPoint])
}

function freeDisk(): void {
  rmSync(filler, { force: true })
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Returns `bytes` bytes of text once `gate` exists in the workspace: the test fills the disk meanwhile. */
const produceTool: ToolEntry = defineTool({
  name: 'Produce',
  description: 'Waits for a gate file, then returns that many bytes',
  inputSchema: Type.Object({ bytes: Type.Number(), gate: Type.Optional(Type.String()) }),
  readOnly: true,
  destructive: false,
  concurrentSafe: true,
  permission: { sideEffectScope: 'none' },
  // Kept inline: the whole result goes into the database, several times its size.
  resultBudget: { strategy: 'truncate', maxModelBytes: 8_000_000, maxInlineBytes: 8_000_000, previewDirection: 'head' },
  handler: async (input, ctx) => {
    if (input.gate !== undefined) {
      const gate = path.join(workspace, input.gate)
      while (!existsSync(gate)) {
        if (ctx.signal.aborted) throw ctx.signal.reason
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    return 'p'.repeat(input.bytes)
  },
})

/** Like Produce, but its large result is saved as an artifact. */
const saveTool: ToolEntry = { ...produceTool, name: 'Save', resultBudget: { strategy: 'artifact', maxModelBytes: 4_000, maxInlineBytes: 4_000, previewDirection: 'head' } }

const TOOLS = [...builtinTools(), produceTool, saveTool, sleepTool()]

let server: TestServer

async function start(): Promise<TestServer> {
  return startTestServer({ dataDir, tools: TOOLS, storageSpace: { reserveBytes: RESERVE_BYTES } })
}

async function schedule(sessionId: string, calls: unknown[]): Promise<string> {
  const reply = await server.json<{ scheduleId: string }>('POST', '/schedules', { sessionId, createSession: {}, calls })
  expect(reply.status, JSON.stringify(reply.body)).toBe(202)
  return reply.body.scheduleId
}

async function view(scheduleId: string, wait = 0): Promise<ScheduleReply> {
  const reply = await server.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=${wait}`)
  expect(reply.status).toBe(200)
  return reply.body
}

async function callRunning(scheduleId: string, callId: string): Promise<void> {
  await waitFor(`${callId} running`, async () => (await view(scheduleId)).calls.find((call) => call.id === callId)?.status === 'running')
}

function expectStorageFull(reply: { status: number; body: unknown }): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(507)
  expect(reply.body).toMatchObject({ error: { code: 'API_ERR_STORAGE_FULL', message: expect.stringContaining(dataDir) as unknown } })
}

/** Every artifact file under the data directory has its row: none is partial or orphaned. */
function expectNoStrayArtifacts(): void {
  const root = path.join(dataDir, 'cli', 'artifacts')
  const files = existsSync(root) ? readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()) : []
  const rows = new Set(sqliteDatabaseOf(server.runtime.store).prepare('SELECT path FROM artifacts').pluck().all() as string[])
  for (const file of files) expect(rows.has(path.join(file.parentPath, file.name)), file.name).toBe(true)
}

describe('a full disk loses nothing (tmpfs data directory)', () => {
  beforeAll(async () => {
    // Mounting needs root: the test machines run as root, and a skip would hide what this proves.
    expect(process.getuid?.(), 'this test mounts a tmpfs and must run as root').toBe(0)
    mkdirSync(mountPoint, { recursive: true })
    mkdirSync(workspace, { recursive: true })
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_MB}m`, 'tmpfs', mountPoint])
    mkdirSync(dataDir)
    server = await start()
    for (const id of ['fd-main', 'fd-bash', 'fd-abort']) {
      const created = await server.json('POST', '/sessions', { id, permissionMode: 'bypassPermissions', workspace })
      expect(created.status).toBe(201)
    }
  }, 30_000)

  afterAll(async () => {
    try {
      await server?.close()
    } finally {
      await unmount()
      rmSync(mountPoint, { recursive: true, force: true })
      rmSync(workspace, { recursive: true, force: true })
    }
  }, 30_000)

  it('keeps what ran while the disk was full, refuses new work with 507, and recovers without a restart', async () => {
    const before = await schedule('fd-main', [{ id: 'before-1', name: 'Produce', input: { bytes: 100_000 } }])
    expect((await view(before, 10)).status).toBe('completed')

    // Started before the disk fills; they finish once it is full.
    const big = await schedule('fd-main', [
      { id: 'big-1', name: 'Produce', input: { bytes: 3_000_000, gate: 'go' } },
      { id: 'saved-1', name: 'Save', input: { bytes: 6_000_000, gate: 'go' } },
    ])
    const bash = await schedule('fd-bash', [{ id: 'bash-1', name: 'Bash', input: { command: `while [ ! -e go ]; do sleep 0.02; done; seq 1 4000000` } }])
    const aborted = await schedule('fd-abort', [{ id: 'sleep-1', name: 'Sleep', input: { ms: 60_000 } }])
    await callRunning(big, 'big-1')
    await callRunning(bash, 'bash-1')
    await callRunning(aborted, 'sleep-1')

    // A failure while full frees the disk all the same: the tests after this one need it.
    try {
      fillDisk()
      writeFileSync(path.join(workspace, 'go'), '')
      await waitFor('a result kept in memory', () => server.runtime.journal.keptCount > 0)

      expectStorageFull(await server.json('POST', '/sessions', { id: 'fd-new' }))
      expectStorageFull(await server.json('POST', '/schedules', { sessionId: 'fd-main', createSession: {}, calls: [{ id: 'new-1', name: 'Produce', input: { bytes: 10 } }] }))
      // The session moves on: its schedule ended in memory, its end written when space returns.
      await waitFor('the session idle', () => server.runtime.live.peek('fd-main')?.running === 0)

      // Abort and DELETE work while full.
      const abort = await server.json<{ aborted: boolean }>('POST', '/sessions/fd-abort/abort')
      expect(abort.status).toBe(200)
      await waitFor('the aborted session idle', () => server.runtime.live.peek('fd-abort')?.running === 0)
      const deleted = await server.json('DELETE', '/sessions/fd-abort')
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204)

      await waitFor('the Bash session idle', () => server.runtime.live.peek('fd-bash')?.running === 0)
    } finally {
      freeDisk()
    }
    await waitFor('every kept write written', () => server.runtime.journal.keptCount === 0)

    const done = await view(big, 10)
    expect(done.status).toBe('completed')
    const [bigCall, savedCall] = done.calls
    expect(bigCall?.status).toBe('succeeded')
    // Its output is what the model received: the record's modelContent, given once.
    expect(bigCall?.modelContent).toBe('p'.repeat(3_000_000))
    expect(bigCall?.result?.outputIsModelContent).toBe(true)
    // The artifact could not be written whole: none is kept, and the model is told.
    expect(savedCall?.status).toBe('succeeded')
    expect(textOf(savedCall?.modelContent)).toContain('[Full output not saved: ENOSPC')
    expect(savedCall?.result?.serialization.persistedPath).toBeUndefined()

    const bashDone = await view(bash, 10)
    expect(bashDone.calls[0]?.status).toBe('failed')
    expect(bashDone.calls[0]?.result?.error).toMatchObject({ code: 'TOOL_ERR_OUTPUT_LOST' })
    expect(textOf(bashDone.calls[0]?.modelContent)).toContain('could not be stored whole')
    expectNoStrayArtifacts()
    expect((await server.json('GET', '/sessions/fd-abort')).status).toBe(404)

    // New work runs again, without a restart.
    expect((await server.json('POST', '/sessions', { id: 'fd-after', permissionMode: 'bypassPermissions', workspace })).status).toBe(201)
    const after = await schedule('fd-after', [{ id: 'after-1', name: 'Produce', input: { bytes: 1_000 } }])
    expect((await view(after, 10)).status).toBe('completed')
  }, 90_000)

  it('a call queued when the disk fills does not start: it ends failed with the API_ERR_STORAGE_FULL message', async () => {
    const sessionId = 'fd-queued'
    const marker = path.join(workspace, 'queued-ran')
    expect((await server.json('POST', '/sessions', { id: sessionId, permissionMode: 'bypassPermissions', workspace })).status).toBe(201)
    // A WAL with room to reuse (grown, then checkpointed to its start): small commits still fit on the full disk.
    const grown = await schedule(sessionId, [{ id: 'q-grow', name: 'Produce', input: { bytes: 400_000 } }])
    expect((await view(grown, 10)).status).toBe('completed')
    const gated = await schedule(sessionId, [{ id: 'q-gate', name: 'Produce', input: { bytes: 10, gate: 'go-queued' } }])
    const queued = await schedule(sessionId, [{ id: 'q-bash', name: 'Bash', input: { command: `touch ${marker}; seq 1 1000` } }])
    await callRunning(gated, 'q-gate')
    await waitFor('the WAL checkpointed to its start', () => (sqliteDatabaseOf(server.runtime.store).pragma('wal_checkpoint(RESTART)') as { busy: number }[])[0]?.busy === 0)
    try {
      fillDisk()
      writeFileSync(path.join(workspace, 'go-queued'), '')
      // Both schedules ended in memory (their ends may wait for space).
      await server.runtime.live.peek(sessionId)?.tail
      expect(existsSync(marker), 'the queued Bash command ran on the full disk').toBe(false)
    } finally {
      freeDisk()
    }
    await waitFor('every kept write written', () => server.runtime.journal.keptCount === 0)
    const ended = await view(queued, 10)
    expect(ended.status).toBe('completed')
    const call = ended.calls[0]
    expect({ status: call?.status, startedAt: call?.startedAt }).toEqual({ status: 'failed', startedAt: undefined })
    expect(textOf(call?.modelContent)).toContain(`No space left in the data directory ${dataDir}`)
    expect(existsSync(marker)).toBe(false)
    await waitFor('room for new work again', () => !server.runtime.storage.fullNow())
  }, 60_000)

  it('abort and DELETE work on a full disk while the WAL has no room to reuse (its checkpoint lags), and the space reserve comes back', async () => {
    const sessionId = 'fd-wal'
    expect((await server.json('POST', '/sessions', { id: sessionId, permissionMode: 'bypassPermissions', workspace })).status).toBe(201)
    const produced = await schedule(sessionId, [{ id: 'wal-1', name: 'Produce', input: { bytes: 200_000 } }])
    expect((await view(produced, 10)).status).toBe('completed')
    const sleeping = await schedule(sessionId, [{ id: 'wal-sleep', name: 'Sleep', input: { ms: 60_000 } }])
    await callRunning(sleeping, 'wal-sleep')
    // An empty WAL file, one commit into it, then a reader pinned to that snapshot: no checkpoint
    // can catch up and no commit can start the WAL over, so every frame from now on needs new space.
    const db = sqliteDatabaseOf(server.runtime.store)
    await waitFor('the WAL truncated', () => (db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]?.busy === 0)
    expect((await server.json('POST', '/sessions', { id: 'fd-wal-pin', workspace })).status).toBe(201)
    const reserve = path.join(dataDir, RESERVE_FILE)
    // The test before spent the reserve; it is made again within a second once there is room.
    await waitFor('the reserve made again', () => existsSync(reserve) && statSync(reserve).size === RESERVE_BYTES)
    const reader = new Database(path.join(dataDir, 'toolexec.db'), { readonly: true })
    reader.prepare('BEGIN').run()
    reader.prepare('SELECT count(*) FROM sessions').get()
    try {
      fillDisk()
      expect((await server.json('POST', `/sessions/${sessionId}/abort`)).status).toBe(200)
      await waitFor('the aborted session idle', () => server.runtime.live.peek(sessionId)?.running === 0)
      const deleted = await server.json('DELETE', `/sessions/${sessionId}`)
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204)
      expect((await server.json('GET', `/sessions/${sessionId}`)).status).toBe(404)
      // The delete took the reserve's space: the WAL had none to reuse.
      expect(existsSync(reserve)).toBe(false)
      // New work is still refused: the reserve's space is not for it.
      expectStorageFull(await server.json('POST', '/sessions', { id: 'fd-wal-new' }))
    } finally {
      reader.prepare('ROLLBACK').run()
      reader.close()
      freeDisk()
    }
    await waitFor('the space reserve made again', () => existsSync(reserve) && statSync(reserve).size === RESERVE_BYTES)
    await waitFor('every kept write written', () => server.runtime.journal.keptCount === 0)
    expect((await server.json('POST', '/sessions', { id: sessionId, permissionMode: 'bypassPermissions', workspace })).status).toBe(201)
    const again = await schedule(sessionId, [{ id: 'wal-2', name: 'Produce', input: { bytes: 1_000 } }])
    expect((await view(again, 10)).status).toBe('completed')
  }, 60_000)

  it('after a restart nothing that ran is interrupted, and the database passes integrity_check', async () => {
    await server.close()
    server = await start()
    for (const sessionId of ['fd-main', 'fd-bash', 'fd-after']) {
      const history = await server.json<{ entries: { callId: string; status: string }[] }>('GET', `/sessions/${sessionId}/history`)
      expect(history.status).toBe(200)
      expect(history.body.entries.length).toBeGreaterThan(0)
      for (const entry of history.body.entries) expect(entry.status, `${sessionId} ${entry.callId}`).not.toBe('interrupted')
    }
    const db = new Database(path.join(dataDir, 'toolexec.db'), { readonly: true })
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    db.close()
  }, 60_000)

  it('a stop while the disk is full does not wait out its grace, and writes what ran before it exits', async () => {
    const sessionId = 'fd-stop'
    expect((await server.json('POST', '/sessions', { id: sessionId, permissionMode: 'bypassPermissions', workspace })).status).toBe(201)
    const scheduleId = await schedule(sessionId, [{ id: 'stop-1', name: 'Produce', input: { bytes: 1_000_000, gate: 'go-stop' } }])
    await callRunning(scheduleId, 'stop-1')
    // An empty WAL, as after a clean start: a WAL left large by the earlier tests could take the result without growing.
    await waitFor('the WAL truncated', () => (sqliteDatabaseOf(server.runtime.store).pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]?.busy === 0)
    fillDisk()
    writeFileSync(path.join(workspace, 'go-stop'), '')
    await waitFor('a result kept in memory', () => server.runtime.journal.keptCount > 0)
    // A grace far longer than this test's timeout: the stop must not wait for a write that cannot happen.
    await server.close({ graceMs: 600_000 })
    freeDisk()
    server = await start()
    const stored = await view(scheduleId)
    expect(stored.calls[0]?.status).toBe('succeeded')
    expect(stored.status).toBe('completed')
  }, 30_000)

  it('a start on a full disk is one line naming the data directory, exit 2', async () => {
    await server.close()
    const fresh = path.join(mountPoint, 'fresh')
    mkdirSync(fresh)
    fillDisk()
    try {
      const env = { ...process.env, NODE_OPTIONS: '', PORT: '0', TOOLEXEC_DATA_DIR: fresh, TOOLEXEC_WORKSPACE: workspace, LOG_LEVEL: 'silent' }
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
      expect(code).toBe(2)
      expect(stderr.trim().split('\n')).toHaveLength(1)
      expect(stderr).toContain(`no space left in the data directory ${fresh}`)
    } finally {
      freeDisk()
      server = await start()
    }
  }, 60_000)
})
