import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { FsArtifactStore } from '../src/storage/fs-artifact-store.js'
import { OutputSink } from '../src/tools/bash/output-sink.js'
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'prof-'))
const N = 536870912
const mode = process.argv[2] ?? 'both'
const sink = new OutputSink({ artifacts: new FsArtifactStore({ dataDir }), artifact: { sessionId: 's', callId: 'c', mediaType: 'text/plain', retention: 'session' } })
const t = performance.now()
const cmd = `head -c ${N} /dev/zero | tr '\\0' 'a'`
const c = mode === 'wrapper' ? spawn('bash', ['-c', 'set -m; bash -c "$1" & wait $!', '_', cmd], { stdio: ['ignore', 'pipe', 'pipe'] }) : spawn('bash', ['-c', cmd], { stdio: ['ignore', 'pipe', 'pipe'], detached: mode === 'detached' })
let pauses = 0, pausedMs = 0, pausedAt = 0, chunks = 0
c.stdout.on('data', (chunk: Buffer) => { chunks++; const w = sink.write('stdout', chunk); if (w) { pauses++; pausedAt = performance.now(); c.stdout.pause(); w.then(() => { pausedMs += performance.now() - pausedAt; c.stdout.resume() }) } })
c.stderr.on('data', () => {})
await new Promise(r => c.on('close', r))
await sink.finish()
console.log(mode, 'ms', (performance.now() - t).toFixed(0), 'chunks', chunks, 'pauses', pauses, 'pausedMs', pausedMs.toFixed(0))
