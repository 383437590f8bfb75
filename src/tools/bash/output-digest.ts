/**
 * @module The sha256 of a large output file, computed in a worker thread once the command has
 * ended, so that the main thread never spends the ~0.7 s of CPU per GiB it costs.
 *
 * Measured on the 2-core development machine with 1 GiB: hashing after the exit adds about
 * 0.9 s whether on the main thread or in a worker; a worker following the file while the
 * command still writes it has the digest ready at once but slows the command by ~1.3 s, as it
 * competes with the command for the same two cores and the same fresh page-cache pages.
 */
import { Worker } from 'node:worker_threads'

// Below this the store hashes the file itself: quicker than starting a worker.
const WORKER_DIGEST_MIN_BYTES = 8 * 1024 * 1024
const CHUNK_BYTES = 4 * 1024 * 1024

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
