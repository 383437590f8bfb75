import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { Pool } from 'undici'
import { loadConfig } from '../../src/config.js'
import { startServer } from '../../src/server.js'
import { noopTool, scheduleBody } from './noop-tool.js'
import { openSse } from './sse-reader.js'
const dir = mkdtempSync(path.join(os.tmpdir(), 'diag-'))
const server = await startServer(loadConfig(['--port', '0', '--data-dir', dir, '--log-level', 'silent'], {}), { tools: [noopTool], logger: pino({ level: 'silent' }) })
server.runtime.ctx.store.db.pragma(process.env.PRAGMA ?? 'wal_autocheckpoint = 1000')
const pool = new Pool(server.url, { connections: 1 })
await (await pool.request({ path: '/sessions', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 's1' }) })).body.text()
let t0 = 0
const marks: string[] = []
let done: () => void = () => {}
const sse = openSse(`${server.url}/sessions/s1/events`, (id, ev) => { marks.push(`${ev}@${(performance.now() - t0).toFixed(2)}`); if (ev === 'ScheduleCompleted') done() })
await sse.opened
for (let i = 0; i < 30; i++) {
  marks.length = 0
  const finished = new Promise<void>((r) => { done = r })
  t0 = performance.now()
  const res = await pool.request({ path: '/schedules', method: 'POST', headers: { 'content-type': 'application/json' }, body: scheduleBody('s1', `c${i}`, i) })
  await res.body.text()
  marks.push(`202@${(performance.now() - t0).toFixed(2)}`)
  await finished
  if (i >= 20) console.log(marks.join(' '))
}
sse.close(); await pool.close(); await server.close()
