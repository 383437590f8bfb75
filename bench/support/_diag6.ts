import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { childScript, startChild } from './child-process.js'
import { poolFor, ToolexecClient } from './http-clients.js'
import { runClosedLoop } from './client-loop.js'
const dir = mkdtempSync(path.join(os.tmpdir(), 'diag-'))
const n = Number(process.argv[2] ?? 50)
const child = await startChild(childScript('toolexec-child.ts'), { args: [dir] })
const pool = poolFor(child.url, n)
const clients = Array.from({ length: n }, (_, i) => new ToolexecClient(pool, child.url, `s${i}`))
await Promise.all(clients.map((c) => c.connect()))
const rep = await runClosedLoop(clients, { warmupMs: 0, durationMs: 5000 })
for (const c of clients) c.close()
await pool.close()
const r = (await child.stop()) as { storeTimings: Record<string, { calls: number; ms: number }> }
console.log(`${rep.totalCalls} calls`)
for (const [k, v] of Object.entries(r.storeTimings).sort((a, b) => b[1].ms - a[1].ms).slice(0, 14)) console.log(`${k.padEnd(22)} ${(v.calls / rep.totalCalls).toFixed(2)} per call, ${(v.ms * 1000 / v.calls).toFixed(1)} µs each, ${(v.ms * 1000 / rep.totalCalls).toFixed(0)} µs per call`)
