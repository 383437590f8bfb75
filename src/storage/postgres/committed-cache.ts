/**
 * @module Rows as committed, kept between reads of a table that only this store writes. A read
 * fills it only when no unit writing the table was recorded while the read was on its way: an
 * answer sent before that unit committed may be older than it.
 */
export class CommittedCache<V> {
  readonly #entries = new Map<string, V>()
  /** Counts the evictions, so that a read can tell whether one happened while it was on its way. */
  #evictions = 0

  /** The cached value of `key`, else what `read` answers (kept when it is defined and still current). */
  async get(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.#entries.get(key)
    if (cached !== undefined) return cached
    const evictions = this.#evictions
    const value = await read()
    if (value !== undefined && evictions === this.#evictions) this.#entries.set(key, value)
    return value
  }

  evictAll(): void {
    this.#entries.clear()
    this.#evictions++
  }
}
