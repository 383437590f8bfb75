/**
 * @module A Grep worker thread: opens, reads and searches batches of files walked by the main
 * thread, and replies with what its scanners recorded. A pattern that backtracks for too long
 * is stopped by terminating this thread (see grep-pool.ts); Node closes the files a worker
 * opened when it exits.
 */
import { closeSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { openWalkedFile, type OpenableFile } from '../glob/file-walker.js'
import { BatchRecorder } from './batch-recorder.js'
import { ChunkReader, type ChunkConsumer } from './chunk-reader.js'
import { createFileScanner, type FileScanner } from './file-scanners.js'
import { compilePattern } from './grep-pattern.js'
import { ownThreadId } from './thread-priority.js'
import type { BatchDirectory, BatchRequest, SearchSpec, WorkerData, WorkerReply } from './worker-protocol.js'

const port = parentPort
if (port === null) throw new Error('grep-worker.ts runs as a worker thread')
const beat = new Int32Array((workerData as WorkerData).beat)
const BEAT = 0
const RUNNING = 1

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
      Atomics.add(beat, BEAT, 1)
      return scanner.chunk(bytes, final)
    },
  }
}

function searchFile(request: BatchRequest, entry: OpenableFile, labelPrefix: string, name: string, scanner: FileScanner, consumer: ChunkConsumer): void {
  const fd = openWalkedFile(entry, request.guard)
  if (fd === undefined) return
  try {
    scanner.start(labelPrefix, name)
    reader.read(fd, consumer)
  } catch {
    // Unreadable (EISDIR after a swap, EIO): skipped like grep -s.
  } finally {
    closeSync(fd)
  }
}

function searchDirectory(request: BatchRequest, directory: BatchDirectory, scanner: FileScanner, consumer: ChunkConsumer, recorder: BatchRecorder): void {
  const { names, links, openPrefix, absolutePrefix, labelPrefix, pinned } = directory
  let nextLink = 0
  for (let index = 0; index < names.length && !recorder.stopped; index++) {
    const name = names[index] as string
    const link = links[nextLink] === index
    if (link) nextLink++
    const entry: OpenableFile = { openPath: openPrefix + name, absolute: absolutePrefix + name, pinned, link }
    searchFile(request, entry, labelPrefix, name, scanner, consumer)
  }
}

function searchBatch(request: BatchRequest): WorkerReply {
  Atomics.store(beat, RUNNING, request.id)
  Atomics.add(beat, BEAT, 1)
  const { scanner, recorder } = prepare(request.spec)
  recorder.reset(request.room, request.stopAtCap)
  const consumer = beating(scanner)
  for (const directory of request.directories) {
    if (recorder.stopped) break
    searchDirectory(request, directory, scanner, consumer, recorder)
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
// The pool lowers this thread's priority while it runs a long batch; it knows the thread by this id.
port.postMessage({ kind: 'ready', threadId: ownThreadId() } satisfies WorkerReply)
