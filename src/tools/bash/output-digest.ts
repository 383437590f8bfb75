/**
 * @module The sha256 of a large output file, computed in worker threads so that the main
 * thread never spends the ~0.95 s of CPU per GiB it costs (with SHA instructions; more
 * without). A DigestFollower hashes the file while the command writes it; what it cannot
 * vouch for is hashed whole once the command has ended.
 */
import { Worker } from 'node:worker_threads'
import type { DigestFollower } from './digest-follower.js'

// Below this the store hashes the file itself: quicker than starting a worker.
const WORKER_DIGEST_MIN_BYTES = 8 * 1024 * 1024
const CHUNK_BYTES = 1024 * 1024

// Plain JavaScript evaluated in the worker, so it runs the same under tsc output, tsx and vitest.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { openSync, readSync, closeSync } = require('node:fs')
const { createHash } = require('node:crypto')
const fd = openSync(workerData.path, 'r')
const hash = createHash('sha256')
const buffer = Buffer.allocUnsafe(workerData.chunkBytes)
let offset = 0
while (offset < workerData.bytes) {
  const read = readSync(fd, buffer, 0, Math.min(buffer.length, workerData.bytes - offset), offset)
  if (read === 0) throw new Error('the file is shorter than ' + workerData.bytes + ' bytes')
  hash.update(buffer.subarray(0, read))
  offset += read
}
closeSync(fd)
parentPort.postMessage(hash.digest('hex'))
`

/** The sha256 (hex) of the first `bytes` bytes of the file at `path`. */
function sha256InWorker(path: string, bytes: number): Promise<string> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, bytes, chunkBytes: CHUNK_BYTES } })
  return new Promise((resolve, reject) => {
    worker.once('message', (digest: unknown) => (typeof digest === 'string' ? resolve(digest) : reject(new Error('no digest'))))
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`the digest worker exited with ${code}`)))
  })
}

/** The digest for a commit: from a worker when large, else left to the store (undefined). */
export async function digestForCommit(path: string, bytes: number): Promise<string | undefined> {
  return bytes < WORKER_DIGEST_MIN_BYTES ? undefined : sha256InWorker(path, bytes)
}

/** Whether an output of `bytes` so far is worth following with a worker of its own. */
export function worthFollowing(bytes: number): boolean {
  return bytes >= WORKER_DIGEST_MIN_BYTES
}

/** The digest of the first `bytes` bytes: the follower's when it has one, else hashed now. */
export async function digestAfterFollowing(follower: DigestFollower | undefined, path: string, bytes: number): Promise<string | undefined> {
  const followed = await follower?.digestOf(bytes)
  return followed ?? digestForCommit(path, bytes)
}
