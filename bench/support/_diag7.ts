import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { createRuntime } from '../../src/sessions/runtime.js'
import { noopTool } from './noop-tool.js'
import { timeStoreMethods } from './store-timing.js'
const dir = mkdtempSync(path.join(os.tmpdir(), 'diag-'))
const runtime = createRuntime({ dataDir: dir, workspace: dir, tools: [noopTool], logger: pino({ level: 'silent' }) })
for (const p of (process.env.BENCH_PRAGMA ?? '').split(';').filter((x) => x.trim())) runtime.ctx.store.db.pragma(p)
const n = Number(process.argv[2] ?? 50)
const waiting = new Map<string, () => void>()
const sessions = Array.from({ length: n }, (_, i) => `s${i}`)
for (const s of sessions) runtime.ctx.bus.subscribe(s, (e) => { if (e.type === 'ToolCallResult') { const id = JSON.parse(e.data).callId as string; waiting.get(s + id)?.() } })
let count = 0
let serial = 0
const timings = process.env.T === '1' ? timeStoreMethods(runtime.ctx.store) : undefined
async function loop(s: string, until: number) {
  for (let i = 0; performance.now() < until; i++) {
    const id = `c${serial++}`; count++
    const done = new Promise<void>((r) => waiting.set(s + id, r))
    runtime.schedules.submit({ sessionId: s, calls: [{ id, name: 'Noop', input: { n: i } }] })
    await done
  }
}
await Promise.all(sessions.map((s) => loop(s, performance.now() + 1000)))
count = 0
const c0 = process.cpuUsage(); const t0 = performance.now()
await Promise.all(sessions.map((s) => loop(s, performance.now() + 4000)))
const c = process.cpuUsage(c0); const ms = performance.now() - t0
console.log(`${n} sessions: ${(count / ms * 1000).toFixed(0)} calls/s, ${((c.user + c.system) / count).toFixed(0)} µs CPU/call (sys ${(c.system / count).toFixed(0)})`)
if (timings) for (const [k, v] of Object.entries(timings()).sort((a, b) => b[1].ms - a[1].ms).slice(0, 6)) console.log(`  ${k} ${(v.calls / count).toFixed(2)}/call ${(v.ms * 1000 / v.calls).toFixed(1)} µs each`)
await new Promise((r) => setTimeout(r, 100))
runtime.close()
