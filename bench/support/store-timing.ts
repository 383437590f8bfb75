/**
 * Diagnostic for the HTTP bench (BENCH_STORE_TIMING=1): wraps every method of one store
 * instance to add up its calls and wall time (a method that calls another counts both),
 * so a report can say which storage steps a call pays for. `transaction` counts savepoints
 * too; `outermost transaction` counts only the ones that commit.
 */
import type { Store } from '../../src/contracts/store.js'

export interface MethodTiming {
  calls: number
  ms: number
}

export function timeStoreMethods(store: Store): () => Record<string, MethodTiming> {
  const timings: Record<string, MethodTiming> = {}
  const target = store as unknown as Record<string, unknown>
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(store))) {
    const method = target[name]
    if (name === 'constructor' || typeof method !== 'function') continue
    const timing: MethodTiming = { calls: 0, ms: 0 }
    timings[name] = timing
    const outermost: MethodTiming = { calls: 0, ms: 0 }
    if (name === 'transaction') timings['outermost transaction'] = outermost
    target[name] = function timed(this: unknown, ...args: unknown[]): unknown {
      const commits = name === 'transaction' && !store.inTransaction
      const started = performance.now()
      try {
        return (method as (...a: unknown[]) => unknown).apply(this, args)
      } finally {
        const ms = performance.now() - started
        timing.calls++
        timing.ms += ms
        if (commits) {
          outermost.calls++
          outermost.ms += ms
        }
      }
    }
  }
  return () => timings
}
