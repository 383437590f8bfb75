/**
 * @module A Grep worker thread: searches batches of files already opened by the main thread
 * and replies with what its scanners recorded. It never closes a descriptor: the main thread
 * does, once the batch is answered or the worker is gone, so a descriptor number is never
 * closed twice nor reused under a read. A pattern that backtracks for too long is stopped by
 * terminating this thread (see grep-pool.ts).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { BatchRecorder } from './batch-recorder.js'
import { ChunkReader, type ChunkConsumer } from './chunk-reader.js'
import { createFileScanner, type FileScanner } from './file-scanners.js'
import { compilePattern } from './grep-pattern.js'
import type { BatchRequest, SearchSpec, WorkerData, WorkerReply } from './worker-protocol.js'

const port = parentPort
if (port === null) throw new Error('grep-worker.ts runs as a worker thread')
const beat = new Int32Array((workerData as WorkerData).beat)

interface Prepared {
  readonly key: number
  readonly scanner: FileScanner
  readonly recorder: BatchRecorder
}

const reader = new ChunkReader()
let prepared: Prepared | undefined

function prepare(spec: SearchSpec): Prepared {
  if (prepared?.key === spec.key) return prepared
  const recorder = new BatchRecorder()
  const scanner = createFileScanner({
    pattern: compilePattern(spec.pattern, spec.ignoreCase),
    mode: spec.mode,
    lineNumbers: spec.lineNumbers,
    before: spec.before,
    after: spec.after,
    output: recorder,
  })
  prepared = { key: spec.key, scanner, recorder }
  return prepared
}

function beating(scanner: FileScanner): ChunkConsumer {
  return {
    chunk(bytes, final) {
      Atomics.add(beat, 0, 1)
      return scanner.chunk(bytes, final)
    },
  }
}

function searchBatch(request: BatchRequest): WorkerReply {
  Atomics.store(beat, 1, request.id)
  Atomics.add(beat, 0, 1)
  const { scanner, recorder } = prepare(request.spec)
  recorder.reset(request.room, request.stopAtCap)
  const consumer = beating(scanner)
  for (let index = 0; index < request.fds.length && !recorder.stopped; index++) {
    scanner.start('', request.labels[index] as string)
    try {
      reader.read(request.fds[index] as number, consumer)
    } catch {
      // Unreadable (EISDIR after a swap, EIO): skipped like grep -s.
    }
  }
  return { kind: 'done', id: request.id, batch: recorder.finish() }
}

port.on('message', (request: BatchRequest) => {
  let reply: WorkerReply
  try {
    reply = searchBatch(request)
  } catch (error) {
    reply = { kind: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) }
  }
  const transfer = reply.kind === 'done' ? [reply.batch.bytes.buffer, reply.batch.ends.buffer, reply.batch.kinds.buffer, reply.batch.counts.buffer] : []
  port.postMessage(reply, transfer as ArrayBuffer[])
})
port.postMessage({ kind: 'ready' } satisfies WorkerReply)
