/** Polls `probe` until it gives a value, failing after `timeoutMs` with what was awaited. */
export async function until<T>(probe: () => T | undefined | Promise<T | undefined>, what = 'a value', timeoutMs = 5_000, everyMs = 15): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
