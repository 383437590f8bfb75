/**
 * The real toolexec server (startServer) on a data dir given as argv[2], with the no-op
 * tool registered (and the built-in tools too when BENCH_BUILTIN_TOOLS=1). Its stop report counts the stored rows, so the bench can prove every
 * call it timed was persisted with a terminal record.
 */
import { statSync } from 'node:fs'
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import { startServer } from '../../src/server.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { noopTool } from './noop-tool.js'
import { benchStreamLimits, serveAsChild } from './child-process.js'
import { timeStoreMethods } from './store-timing.js'
import { sqliteDatabaseOf } from '../../src/storage/sqlite/sqlite-store.js'

const dataDir = process.argv[2]
if (dataDir === undefined) throw new Error('usage: toolexec-child.ts <dataDir>')
const config = loadConfig(['--port', '0', '--data-dir', dataDir, '--workspace', dataDir, '--log-level', 'silent'], {})
const server = await startServer(config, { tools: process.env.BENCH_BUILTIN_TOOLS === '1' ? [...builtinTools(), noopTool] : [noopTool], logger: pino({ level: 'silent' }), streamLimits: benchStreamLimits() })
// What-if knob for profiling storage settings, e.g. BENCH_PRAGMA='wal_autocheckpoint = 10000'.
for (const pragma of (process.env.BENCH_PRAGMA ?? '').split(';').filter((p) => p.trim() !== '')) sqliteDatabaseOf(server.runtime.store).pragma(pragma)

const storeTimings = process.env.BENCH_STORE_TIMING === '1' ? timeStoreMethods(server.runtime.store) : undefined

// The WAL's largest size: it must start over under load rather than grow without bound.
const walFile = `${sqliteDatabaseOf(server.runtime.store).name}-wal`
let walPeakBytes = 0
const walSampler = setInterval(() => {
  walPeakBytes = Math.max(walPeakBytes, statSync(walFile, { throwIfNoEntry: false })?.size ?? 0)
}, 250)
walSampler.unref()

serveAsChild(server.url, async () => {
  const timings = storeTimings?.()
  const db = sqliteDatabaseOf(server.runtime.store)
  const terminal = db.prepare("SELECT count(*) FROM tool_calls WHERE result_json IS NOT NULL AND status = 'succeeded'").pluck().get() as number
  const counts = server.runtime.store.rowCounts()
  await server.close()
  clearInterval(walSampler)
  return { ...counts, succeededCalls: terminal, walPeakBytes, ...(timings === undefined ? {} : { storeTimings: timings }) }
})
