/**
 * The real toolexec server (startServer) on a data dir given as argv[2], storing in the
 * PostgreSQL database whose URL is argv[3] when one is given (else in the data dir's SQLite
 * file), with the no-op tool registered (and the built-in tools too when
 * BENCH_BUILTIN_TOOLS=1). Its stop report counts the stored calls and events through the
 * Store port, so the bench can prove every call it timed was persisted with a terminal
 * record on either backend.
 */
import { statSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import type { Store } from '../../src/contracts/store.js'
import { startServer } from '../../src/server.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { noopTool } from './noop-tool.js'
import { benchStreamLimits, serveAsChild } from './child-process.js'
import { timeStoreMethods } from './store-timing.js'
import { SQLITE_FILE } from '../../src/storage/open-store.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js'

const [dataDir, databaseUrl] = process.argv.slice(2)
if (dataDir === undefined) throw new Error('usage: toolexec-child.ts <dataDir> [<postgres database URL>]')
const database = databaseUrl === undefined ? [] : ['--database-url', databaseUrl]
// A node of bench:cluster: its name and lease time.
const cluster = [
  ...(process.env.BENCH_NODE_ID === undefined ? [] : ['--node-id', process.env.BENCH_NODE_ID]),
  ...(process.env.BENCH_LEASE_MS === undefined ? [] : ['--lease-ms', process.env.BENCH_LEASE_MS]),
]
const config = loadConfig(['--port', '0', '--data-dir', dataDir, '--workspace', dataDir, '--log-level', 'silent', ...database, ...cluster], {})
const server = await startServer(config, {
  tools: process.env.BENCH_BUILTIN_TOOLS === '1' ? [...builtinTools(), noopTool] : [noopTool],
  logger: pino({ level: 'silent' }),
  streamLimits: benchStreamLimits(),
})
const onSqlite = config.databaseUrl === undefined

// What-if knob for profiling storage settings, e.g. BENCH_PRAGMA='wal_autocheckpoint = 10000'.
const pragmas = (process.env.BENCH_PRAGMA ?? '').split(';').filter((p) => p.trim() !== '')
for (const pragma of onSqlite ? pragmas : []) sqliteDatabaseOf(server.runtime.store).pragma(pragma)
// The same for PostgreSQL, run once after the migrations, e.g. BENCH_POSTGRES_SQL='ALTER TABLE tool_calls SET (fillfactor = 70)'.
if (!onSqlite && process.env.BENCH_POSTGRES_SQL !== undefined) await runOnce(databaseUrl as string, process.env.BENCH_POSTGRES_SQL)

const storeTimings = process.env.BENCH_STORE_TIMING === '1' ? timeStoreMethods(server.runtime.store) : undefined
const walPeak = onSqlite ? sampleWalPeak(`${path.join(dataDir, SQLITE_FILE)}-wal`) : undefined

async function runOnce(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(sql).finally(() => client.end())
}

/** The WAL's largest size: it must start over under load rather than grow without bound. */
function sampleWalPeak(walFile: string): { bytes(): number; stop(): void } {
  let peak = 0
  const sampler = setInterval(() => {
    peak = Math.max(peak, statSync(walFile, { throwIfNoEntry: false })?.size ?? 0)
  }, 250)
  sampler.unref()
  return { bytes: () => peak, stop: () => clearInterval(sampler) }
}

interface StoredTotals {
  /** Calls stored as succeeded with their result. */
  readonly succeededCalls: number
  readonly tool_calls: number
  readonly events: number
}

/** Totals of every session; a session's events are numbered with no gaps, so its last seq is their count. */
async function storedTotals(store: Store): Promise<StoredTotals> {
  const totals = { succeededCalls: 0, tool_calls: 0, events: 0 }
  for (const sessionId of await store.sessions.ids()) {
    const [history, counts, lastSeq] = await Promise.all([store.schedules.history(sessionId), store.sessions.counts(sessionId), store.events.lastSeq(sessionId)])
    totals.succeededCalls += history.filter((call) => call.status === 'succeeded' && call.result !== undefined).length
    totals.tool_calls += counts.calls
    totals.events += lastSeq
  }
  return totals
}

/** What the PostgreSQL store sent over the whole run: every call of it is counted, warm-up included. */
function postgresTraffic(store: Store): { roundTrips: number; statements: number } | undefined {
  return store instanceof PostgresStore ? store.traffic : undefined
}

serveAsChild(server.url, async () => {
  const timings = storeTimings?.()
  const traffic = postgresTraffic(server.runtime.store)
  const totals = await storedTotals(server.runtime.store)
  await server.close()
  walPeak?.stop()
  return { ...totals, walPeakBytes: walPeak?.bytes(), ...traffic, ...(timings === undefined ? {} : { storeTimings: timings }) }
})
