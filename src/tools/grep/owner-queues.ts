/**
 * @module The batches waiting for a Grep worker, one queue per owner (a session), so that
 * the owner holding the fewest workers is served first and one owner's many batches never
 * stand in front of another owner's one. Owners with equal holdings take turns: an owner
 * served goes to the back of the line.
 */

export interface Owned {
  readonly owner: string
}

export class OwnerQueues<T extends Owned> {
  /** In the order owners are to be served among equals. */
  readonly #queues = new Map<string, T[]>()
  #size = 0

  get size(): number {
    return this.#size
  }

  /** Owners with a batch waiting. */
  get owners(): number {
    return this.#queues.size
  }

  has(owner: string): boolean {
    return this.#queues.has(owner)
  }

  push(item: T): void {
    this.#queueOf(item.owner).push(item)
    this.#size++
  }

  /** Puts items back at the front of their owners' queues (a stopped worker's batches), in order. */
  unshift(items: readonly T[]): void {
    for (let index = items.length - 1; index >= 0; index--) {
      const item = items[index] as T
      this.#queueOf(item.owner).unshift(item)
      this.#size++
    }
  }

  /** Waiting owners, the one holding the fewest workers first, equals in turn. */
  byNeed(held: (owner: string) => number): string[] {
    return [...this.#queues.keys()].sort((a, b) => held(a) - held(b))
  }

  /** The owner's next item; the owner goes to the back of the line. */
  take(owner: string): T | undefined {
    const queue = this.#queues.get(owner)
    const item = queue?.shift()
    if (queue === undefined || item === undefined) return undefined
    this.#size--
    this.#queues.delete(owner)
    if (queue.length > 0) this.#queues.set(owner, queue)
    return item
  }

  /** Removes and returns every item that `matches`. */
  remove(matches: (item: T) => boolean): T[] {
    const removed: T[] = []
    for (const [owner, queue] of this.#queues) {
      const kept = queue.filter((item) => !matches(item))
      removed.push(...queue.filter(matches))
      if (kept.length === 0) this.#queues.delete(owner)
      else this.#queues.set(owner, kept)
    }
    this.#size -= removed.length
    return removed
  }

  #queueOf(owner: string): T[] {
    let queue = this.#queues.get(owner)
    if (queue === undefined) {
      queue = []
      this.#queues.set(owner, queue)
    }
    return queue
  }
}
