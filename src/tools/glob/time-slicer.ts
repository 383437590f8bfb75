/**
 * @module Synchronous file-system work in short slices. On small files a thread-pool round
 * trip costs several times the read itself (measured: 4-10x the CPU of readSync for 20,000
 * files of 10 KB), so the file tools walk and read synchronously, and give the event loop a
 * turn every few milliseconds so that other calls and sessions keep running.
 */

export const DEFAULT_SLICE_MS = 8

export class TimeSlicer {
  readonly #signal: AbortSignal
  readonly #sliceMs: number
  #started = performance.now()

  constructor(signal: AbortSignal, sliceMs = DEFAULT_SLICE_MS) {
    this.#signal = signal
    this.#sliceMs = sliceMs
  }

  /** True once the current slice is spent; then call `yield()`. */
  get due(): boolean {
    return performance.now() - this.#started >= this.#sliceMs
  }

  /** Lets the event loop run, then throws if the call was aborted meanwhile. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.#signal.throwIfAborted()
    this.#started = performance.now()
  }
}
