import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { FsArtifactStore } from '../src/storage/fs-artifact-store.js'
import { OutputSink } from '../src/tools/bash/output-sink.js'
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'prof-'))
const N = 536870912, C = 8192
const sink = new OutputSink({ artifacts: new FsArtifactStore({ dataDir }), artifact: { sessionId: 's', callId: 'c', mediaType: 'text/plain', retention: 'session' } })
let t = performance.now(); let waits = 0
for (let i = 0; i < N / C; i++) { const w = sink.write('stdout', Buffer.alloc(C, 97)); if (w) { waits++; await w } }
const out = await sink.finish()
console.log('sink ms', performance.now() - t, 'waits', waits, out.totalBytes)
const store = new FsArtifactStore({ dataDir }); t = performance.now(); waits = 0
const s = await store.open({ sessionId: 's', callId: 'd', mediaType: 'text/plain', retention: 'session' })
for (let i = 0; i < N / C; i++) { const w = s.write(Buffer.alloc(C, 97)); if (w) { waits++; await w } }
await s.close(); console.log('stream ms', performance.now() - t, 'waits', waits)
