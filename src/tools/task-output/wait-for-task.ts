/** @module Waiting for a background task to end, at most so long, and never past an abort. */

/**
 * True when `done` settled (fulfilled or rejected) within `timeoutMs`; false on timeout or
 * abort. Every timer and listener is removed on every path.
 */
export function waitForTask(done: Promise<unknown>, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise<boolean>((resolve) => {
    const finish = (settled: boolean): void => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      resolve(settled)
    }
    const onAbort = (): void => finish(false)
    const timer = setTimeout(finish, timeoutMs, false)
    signal.addEventListener('abort', onAbort, { once: true })
    done.then(
      () => finish(true),
      () => finish(true),
    )
  })
}
