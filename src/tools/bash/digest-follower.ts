/**
 * @module A worker that hashes a command's output file while the command is still writing it,
 * on the other core: once the command ends, only what it wrote since the follower's last read
 * is left to hash.
 *
 * It vouches only for bytes that were appended. A command may truncate its own output (`echo
 * x > /dev/stderr` reopens the file with O_TRUNC) or overwrite it in place; the follower gives
 * up when it ever sees the file shorter than what it read, or when, at the end, the first 64
 * bytes of any MiB it read differ from what it read there, and the caller hashes the whole
 * file instead. Not caught: a rewrite that changes only bytes between those samples before the
 * follower sees the file shorter; the digest is then that of the bytes as first written.
 */
import { Worker } from 'node:worker_threads'

const CHUNK_BYTES = 1024 * 1024
// A follower that caught up (less than a chunk written since its last read) sleeps this long
// at first, doubling up to the most while nothing comes.
const FOLLOW_FIRST_WAIT_MS = 1
const FOLLOW_MAX_WAIT_MS = 50
// Kept from the start of every chunk the follower read, and read again at the end.
const SAMPLE_BYTES = 64

// Plain JavaScript evaluated in the worker, so it runs the same under tsc output, tsx and vitest.
// It hashes what the file holds so far, counting it in end[1]; control[0] turns 1 once the
// final size is in end[0]. Reads never cross a chunk boundary; the first bytes of every chunk
// are kept as a sample. It posts the digest, or null when the bytes it read may no longer be
// the file's: the file was seen shorter than what it read, or a sample differs at the end.
const FOLLOWER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { openSync, readSync, fstatSync, closeSync } = require('node:fs')
const { createHash } = require('node:crypto')
const { chunkBytes, sampleBytes } = workerData
const control = new Int32Array(workerData.shared, 0, 1)
const end = new Float64Array(workerData.shared, 8, 2)
const fd = openSync(workerData.path, 'r')
const hash = createHash('sha256')
const buffer = Buffer.allocUnsafe(chunkBytes)
const samples = []
let offset = 0
let wait = workerData.firstWaitMs
function samplesHold() {
  const bytes = Buffer.allocUnsafe(sampleBytes)
  return samples.every(({ at, sample }) => readSync(fd, bytes, 0, sample.length, at) === sample.length && bytes.subarray(0, sample.length).equals(sample))
}
function follow() {
  for (;;) {
    const final = Atomics.load(control, 0) === 1 ? end[0] : undefined
    const { size, nlink } = fstatSync(fd)
    // A file removed (its output dropped) ends the follower whoever removed it.
    if (nlink === 0) return null
    if (size < offset || (final !== undefined && (size < final || final < offset))) return null
    // Before the end is known only whole chunks are read: fewer, larger reads behind the writer.
    const until = final === undefined ? size - (size % chunkBytes) : final
    if (offset < until) {
      const read = readSync(fd, buffer, 0, Math.min(chunkBytes - (offset % chunkBytes), until - offset), offset)
      if (read === 0) return null
      if (offset % chunkBytes === 0) samples.push({ at: offset, sample: Buffer.from(buffer.subarray(0, Math.min(read, sampleBytes))) })
      hash.update(buffer.subarray(0, read))
      offset += read
      end[1] = offset
      wait = workerData.firstWaitMs
    } else if (final !== undefined) {
      return samplesHold() ? hash.digest('hex') : null
    } else {
      Atomics.wait(control, 0, 0, wait)
      wait = Math.min(wait * 2, workerData.maxWaitMs)
    }
  }
}
const digest = follow()
closeSync(fd)
parentPort.postMessage(digest)
`

/** A worker hashing a file while it grows; `digestOf` names its final size. */
export class DigestFollower {
  readonly #worker: Worker
  readonly #control: Int32Array
  readonly #end: Float64Array
  readonly #digest: Promise<string | undefined>

  constructor(path: string) {
    const shared = new SharedArrayBuffer(24)
    this.#control = new Int32Array(shared, 0, 1)
    this.#end = new Float64Array(shared, 8, 2)
    this.#worker = new Worker(FOLLOWER_SOURCE, {
      eval: true,
      workerData: { path, shared, chunkBytes: CHUNK_BYTES, sampleBytes: SAMPLE_BYTES, firstWaitMs: FOLLOW_FIRST_WAIT_MS, maxWaitMs: FOLLOW_MAX_WAIT_MS },
    })
    // While nobody waits for it, it does not hold the process open.
    this.#worker.unref()
    // Whatever goes wrong in the follower, the caller hashes the file itself: undefined.
    this.#digest = new Promise((resolve) => {
      this.#worker.once('message', (digest: unknown) => resolve(typeof digest === 'string' ? digest : undefined))
      this.#worker.once('error', () => resolve(undefined))
      this.#worker.once('exit', () => resolve(undefined))
    })
  }

  /** Bytes hashed so far. */
  get followed(): number {
    return this.#end[1] as number
  }

  /** The sha256 of the first `bytes` bytes; undefined when the follower cannot vouch for them. */
  digestOf(bytes: number): Promise<string | undefined> {
    // From now on something waits for it: it keeps the process alive until it answers.
    this.#worker.ref()
    this.#end[0] = bytes
    Atomics.store(this.#control, 0, 1)
    Atomics.notify(this.#control, 0)
    return this.#digest
  }

  /** Ends the worker, whatever it was doing (the output is dropped). */
  stop(): void {
    void this.#worker.terminate()
  }
}
