/** Small numeric helpers for bench reports. */

export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return Number.NaN
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1))
  return sortedMs[index] as number
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  )
}

export function perSecond(count: number, ms: number): number {
  return (count / ms) * 1000
}

export function formatRate(value: number): string {
  return Math.round(value).toLocaleString('en')
}
