/**
 * @module How long each phase of a start took, in milliseconds, for one debug line once the
 * server listens: where a slow start spends its time, told without a profiler.
 */

export class StartPhases {
  private readonly durations: Record<string, number> = {}
  private last: number

  /** `since`: when the first phase began (0: the process's own start, as performance.now() counts). */
  constructor(since: number = performance.now()) {
    this.last = since
  }

  /** Ends the phase running since the last mark (or the start) and names it. */
  mark(name: string): void {
    const now = performance.now()
    this.durations[name] = (this.durations[name] ?? 0) + roundMs(now - this.last)
    this.last = now
  }

  /** Each phase's duration in the order they ran, and their sum. */
  report(): { phases: Record<string, number>; totalMs: number } {
    const totalMs = Object.values(this.durations).reduce((sum, ms) => sum + ms, 0)
    return { phases: { ...this.durations }, totalMs: roundMs(totalMs) }
  }
}

function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10
}
