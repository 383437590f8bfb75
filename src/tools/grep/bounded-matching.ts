/**
 * @module A bound on how long Grep's synchronous matching may hold the event loop. A pattern
 * with catastrophic backtracking (`(a+)+$`, `.*.*.*x` on a long line) can run for hours in a
 * single exec() call, which no timer or abort can interrupt: every session of the server
 * would stop with it. So each stretch of synchronous searching runs as a vm script with a
 * timeout, whose watchdog thread terminates the execution. (A watchdog costs ~85 µs, so a
 * stretch is a time slice of many files or a chunk of a large one, not a line.) A terminated
 * stretch skips its finally blocks: the caller closes what the stretch had open.
 */
import vm from 'node:vm'
import { FileToolError } from '../workspace.js'

/** Far above any sane stretch: slices are ~8 ms, a chunk of at most 16 MiB takes well under a second. */
export const MATCHING_LIMIT_MS = 2_000

const context = vm.createContext({ stretch: undefined as (() => unknown) | undefined })
const script = new vm.Script('stretch()', { filename: 'grep-bounded-matching' })

/**
 * Runs `stretch` synchronously, stopped after `limitMs`.
 * @throws FileToolError TOOL_ERR_PATTERN_TOO_SLOW when it was stopped
 */
export function runBounded<T>(pattern: string, stretch: () => T, limitMs: number = MATCHING_LIMIT_MS): T {
  context.stretch = stretch
  try {
    return script.runInContext(context, { timeout: limitMs }) as T
  } catch (error) {
    if (!isTimeout(error)) throw error
    throw new FileToolError(
      'TOOL_ERR_PATTERN_TOO_SLOW',
      `The pattern ${JSON.stringify(pattern)} took more than ${limitMs} ms on one stretch of text and was stopped: it backtracks catastrophically (nested or adjacent quantifiers such as (a+)+ or .*.*). Simplify it, e.g. remove nested quantifiers or anchor it with literal text.`,
    )
  } finally {
    context.stretch = undefined
  }
}

function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT'
}
