/**
 * The real toolexec server (startServer) on a data dir given as argv[2], storing in the
 * PostgreSQL database whose URL is argv[3] when one is given (else in the data dir's SQLite
 * file), with the no-op tool registered (and the built-in tools too when
 * BENCH_BUILTIN_TOOLS=1). Its stop report counts the stored rows through the Store port, so
 * the bench can prove every call it timed was persisted with a terminal record on either
 * backend.
 */
import { statSync } from 'node:fs'
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import type { Store } from '../../src/contracts/store.js'
import { startServer } from '../../src/server.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { noopTool } from './noop-tool.js'
import { benchStreamLimits, serveAsChild } from './child-process.js'
import { timeStoreMethods } from './store-timing.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'

const [dataDir, databaseUrl] = process.argv.slice(2)
if (dataDir === undefined) throw new Error('usage: toolexec-child.ts <dataDir> [<postgres database URL>]')
const database = databaseUrl === undefined ? [] : ['--database-url', databaseUrl]
const config = loadConfig(['--port', '0', '--data-dir', dataDir, '--workspace', dataDir, '--log-level', 'silent', ...database], {})
const server = await startServer(config, {
  tools: process.env.BENCH_BUILTIN_TOOLS === '1' ? [...builtinTools(), noopTool] : [noopTool],
  logger: pino({ level: 'silent' }),
  streamLimits: benchStreamLimits(),
})
const onSqlite = config.databaseUrl === undefined

// What-if knob for profiling storage settings, e.g. BENCH_PRAGMA='wal_autocheckpoint = 10000'.
const pragmas = (process.env.BENCH_PRAGMA ?? '').split(';').filter((p) => p.trim() !== '')
for (const pragma of onSqlite ? pragmas : []) sqliteDatabaseOf(server.runtime.store).pragma(pragma)

const storeTimings = process.env.BENCH_STORE_TIMING === '1' ? timeStoreMethods(server.runtime.store) : undefined
const walPeak = onSqlite ? sampleWalPeak(`${sqliteDatabaseOf(server.runtime.store).name}-wal`) : undefined

/** The WAL's largest size: it must start over under load rather than grow without bound. */
function sampleWalPeak(walFile: string): { bytes(): number; stop(): void } {
  let peak = 0
  const sampler = setInterval(() => {
    peak = Math.max(peak, statSync(walFile, { throwIfNoEntry: false })?.size ?? 0)
  }, 250)
  sampler.unref()
  return { bytes: () => peak, stop: () => clearInterval(sampler) }
}

/** Calls stored as succeeded with their result, of every session. */
function succeededCalls(store: Store): number {
  let count = 0
  for (const sessionId of store.sessionIds()) {
    count += store.history(sessionId).filter((call) => call.status === 'succeeded' && call.result !== undefined).length
  }
  return count
}

serveAsChild(server.url, async () => {
  const timings = storeTimings?.()
  const succeeded = succeededCalls(server.runtime.store)
  const counts = server.runtime.store.rowCounts()
  await server.close()
  walPeak?.stop()
  return { ...counts, succeededCalls: succeeded, walPeakBytes: walPeak?.bytes(), ...(timings === undefined ? {} : { storeTimings: timings }) }
})
