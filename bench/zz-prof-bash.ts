import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { FsArtifactStore } from '../src/storage/fs-artifact-store.js'
import { startCommand } from '../src/tools/bash/command-runner.js'
import { OutputSink } from '../src/tools/bash/output-sink.js'
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'prof-'))
const N = 536870912
const sink = new OutputSink({ artifacts: new FsArtifactStore({ dataDir }), artifact: { sessionId: 's', callId: 'c', mediaType: 'text/plain', retention: 'session' } })
let chunks = 0
const orig = sink.write.bind(sink)
;(sink as any).write = (n: any, c: Buffer) => { chunks++; return orig(n, c) }
const t = performance.now()
const r = startCommand({ command: `head -c ${N} /dev/zero | tr '\\0' 'a'`, cwd: dataDir, sink })
const exit = await r.exited
const out = await sink.finish()
console.log('ms', performance.now() - t, 'chunks', chunks, out.totalBytes, exit.exitCode)
