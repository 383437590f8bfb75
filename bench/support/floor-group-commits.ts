/**
 * The floor's group commits (floor-child.ts, floor-cluster-child.ts): calls queued while a
 * commit runs (or in the same tick) share the next commit; each resolves after its own. On
 * SQLite a commit is synchronous, so this is a commit per tick.
 */
import type { AcceptedCall, EndedCall, FloorStore } from './floor-stores.js'

export class GroupCommits {
  #accepted: AcceptedCall[] = []
  #ended: EndedCall[] = []
  #done: Array<() => void> = []
  #committing = false

  /** `storing` false: the same round trip with nothing stored (BENCH_FLOOR_NO_SQLITE=1). */
  constructor(
    readonly store: FloorStore,
    readonly storing = true,
  ) {}

  accept(call: AcceptedCall): Promise<void> {
    this.#accepted.push(call)
    return this.#queued()
  }

  end(call: EndedCall): Promise<void> {
    this.#ended.push(call)
    return this.#queued()
  }

  #queued(): Promise<void> {
    if (this.#done.length === 0 && !this.#committing) setImmediate(() => void this.#flush())
    return new Promise<void>((resolve) => this.#done.push(resolve))
  }

  async #flush(): Promise<void> {
    const batch = { accepted: this.#accepted, ended: this.#ended }
    const done = this.#done
    this.#accepted = []
    this.#ended = []
    this.#done = []
    this.#committing = true
    if (this.storing) await this.store.commit(batch)
    this.#committing = false
    for (const resolve of done) resolve()
    if (this.#done.length > 0) setImmediate(() => void this.#flush())
  }
}
