/**
 * The closed-loop load generator both HTTP targets are driven by: each client runs
 * `call()` again as soon as the previous one ended, until the time is up. Calls that end
 * inside the measured window count towards the rate; calls that start inside it give the
 * latencies.
 */

export interface LoopClient {
  /** One complete round trip; rejects when the target answered wrongly. */
  call(): Promise<void>
}

export interface LoopOptions {
  readonly warmupMs: number
  readonly durationMs: number
}

export interface LoopReport {
  readonly calls: number
  readonly windowMs: number
  readonly callsPerSecond: number
  /** Sorted ascending, in milliseconds. */
  readonly latenciesMs: number[]
  /** Every call made, warm-up and tail included. */
  readonly totalCalls: number
}

export async function runClosedLoop(clients: readonly LoopClient[], options: LoopOptions): Promise<LoopReport> {
  const started = performance.now()
  const windowStart = started + options.warmupMs
  const windowEnd = windowStart + options.durationMs
  const latencies: number[] = []
  let counted = 0
  let total = 0
  const drive = async (client: LoopClient): Promise<void> => {
    while (performance.now() < windowEnd) {
      const begin = performance.now()
      await client.call()
      const end = performance.now()
      total++
      if (end >= windowStart && end <= windowEnd) counted++
      if (begin >= windowStart && end <= windowEnd) latencies.push(end - begin)
    }
  }
  await Promise.all(clients.map(drive))
  latencies.sort((a, b) => a - b)
  return { calls: counted, windowMs: options.durationMs, callsPerSecond: (counted / options.durationMs) * 1000, latenciesMs: latencies, totalCalls: total }
}
