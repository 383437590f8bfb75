import { readFileSync, readdirSync, mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { childScript, startChild } from './child-process.js'
import { poolFor, ToolexecClient } from './http-clients.js'
import { runClosedLoop } from './client-loop.js'
const dir = mkdtempSync(path.join(os.tmpdir(), 'diag-'))
const n = Number(process.argv[2] ?? 50)
const child = await startChild(childScript("toolexec-child.ts"), { args: [dir], cpuProfileDir: process.env.PROF })
const pool = poolFor(child.url, n)
const clients = Array.from({ length: n }, (_, i) => new ToolexecClient(pool, child.url, `s${i}`))
await Promise.all(clients.map((c) => c.connect()))
await runClosedLoop(clients, { warmupMs: 0, durationMs: 1000 })
const threads = () => Object.fromEntries(readdirSync(`/proc/${child.pid}/task`).map((t) => { const f = readFileSync(`/proc/${child.pid}/task/${t}/stat`, 'utf8'); const name = f.slice(f.indexOf('(') + 1, f.lastIndexOf(')')); const rest = f.slice(f.lastIndexOf(')') + 2).split(' '); return [`${t} ${name}`, Number(rest[11]) + Number(rest[12])] }))
const a = threads()
const t0 = performance.now()
const rep = await runClosedLoop(clients, { warmupMs: 0, durationMs: Number(process.env.MS ?? 4000) })
const wall = performance.now() - t0
const b = threads()
console.log('wal bytes', (await import('node:fs')).statSync(path.join(dir, 'toolexec.db-wal')).size, 'db bytes', (await import('node:fs')).statSync(path.join(dir, 'toolexec.db')).size)
console.log(`${rep.totalCalls} calls in ${wall.toFixed(0)} ms`)
for (const k of Object.keys(b)) { const d = (b[k]! - (a[k] ?? 0)) * 10; if (d > 0) console.log(`${k}: ${d} ms CPU, ${(d / rep.totalCalls * 1000).toFixed(0)} µs/call`) }
for (const c of clients) c.close()
await pool.close()
await child.stop()
