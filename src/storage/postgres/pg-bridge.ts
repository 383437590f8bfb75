/**
 * @module A synchronous door to the PostgreSQL worker: a batch is posted to the worker and
 * this thread sleeps (Atomics.wait) until the worker says its reply is posted, then takes it
 * off the port (receiveMessageOnPort). The store's port is synchronous so that a unit of work
 * runs without yielding; this keeps it so on a network database.
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import { CONNECTION_LOST, type BatchReply, type BatchRequest, type Statement, type WorkerData } from './protocol.js'

const CLOSE_TIMEOUT_MS = 5_000

export class BridgeTimeoutError extends Error {
  override readonly name = 'BridgeTimeoutError'
  readonly code = CONNECTION_LOST
}

export class PgBridge {
  readonly #worker: Worker
  readonly #port: MessagePort
  readonly #replied: Int32Array
  #nextId = 1

  constructor(url: string) {
    const signal = new SharedArrayBuffer(4)
    const { port1, port2 } = new MessageChannel()
    const data: WorkerData = { url, signal, port: port2 }
    this.#worker = startWorker(data, [port2])
    // The worker must not keep the process alive once the store is forgotten without close().
    this.#worker.unref()
    this.#port = port1
    this.#replied = new Int32Array(signal)
  }

  /** Runs `statements` in order on the connection and waits up to `timeoutMs` for the reply. */
  run(statements: readonly Statement[], mayReconnect: boolean, timeoutMs: number): BatchReply {
    return this.#request({ statements, mayReconnect }, timeoutMs)
  }

  #request(request: Omit<BatchRequest, 'id'>, timeoutMs: number): BatchReply {
    const id = this.#nextId++
    this.#port.postMessage({ id, ...request })
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const seen = Atomics.load(this.#replied, 0)
      if (seen >= id) break
      const left = deadline - performance.now()
      if (left <= 0) throw new BridgeTimeoutError(`PostgreSQL did not answer within ${timeoutMs} ms`)
      Atomics.wait(this.#replied, 0, seen, left)
    }
    for (;;) {
      const message = receiveMessageOnPort(this.#port)
      if (message === undefined) throw new BridgeTimeoutError('the PostgreSQL worker signalled a reply it did not post')
      const reply = message.message as BatchReply
      // A reply to a batch that timed out before is dropped.
      if (reply.id === id) return reply
    }
  }

  /** Ends the connection first, so that a server opened next on the database finds its owner lock free. */
  close(): void {
    try {
      this.#request({ statements: [], mayReconnect: false, end: true }, CLOSE_TIMEOUT_MS)
    } catch {
      // A worker that does not answer is terminated all the same; PostgreSQL then ends the connection itself.
    }
    this.#port.close()
    void this.#worker.terminate()
  }
}

/**
 * The worker from its built .js beside this file, or, when this module runs as TypeScript
 * (npm start, the tests), from its .ts through tsx, registered in the worker before it loads.
 */
function startWorker(workerData: WorkerData, transferList: MessagePort[]): Worker {
  const here = import.meta.url
  if (!here.endsWith('.ts')) return new Worker(new URL('./pg-worker.js', here), { workerData, transferList })
  const tsxEntry = createRequire(here).resolve('tsx/esm/api')
  const tsxApi = pathToFileURL(path.join(path.dirname(tsxEntry), 'index.mjs')).href
  const worker = pathToFileURL(path.join(path.dirname(fileURLToPath(here)), 'pg-worker.ts')).href
  const code = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}) })`
  return new Worker(code, { eval: true, workerData, transferList })
}
