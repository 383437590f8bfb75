/**
 * @module Wake-ups of this node's readers of a session when another node commits its events (on
 * a database several nodes share). Sessions this node runs are told by the bus instead: their
 * wake-ups are skipped, but for the ones after a lost connection, when anything may be missing.
 */
/** `seq`: the highest event the commit added, when known; without it, anything may be new. */
type Wake = (seq?: number) => void

export class WakeUps {
  readonly #readers = new Map<string, Set<Wake>>()
  readonly #runsHere: (sessionId: string) => boolean

  constructor(runsHere: (sessionId: string) => boolean) {
    this.#runsHere = runsHere
  }

  subscribe(sessionId: string, wake: Wake): () => void {
    let set = this.#readers.get(sessionId)
    if (set === undefined) {
      set = new Set()
      this.#readers.set(sessionId, set)
    }
    set.add(wake)
    return () => {
      set.delete(wake)
      if (set.size === 0 && this.#readers.get(sessionId) === set) this.#readers.delete(sessionId)
    }
  }

  /** Another node committed events of the session. */
  committedElsewhere(sessionId: string, seq?: number): void {
    if (!this.#runsHere(sessionId)) this.wake(sessionId, seq)
  }

  wake(sessionId: string, seq?: number): void {
    for (const wake of this.#readers.get(sessionId) ?? []) wake(seq)
  }

  /** The wake-ups' connection was lost and is back: every reader reads what it may have missed. */
  wakeAll(): void {
    for (const sessionId of this.#readers.keys()) this.wake(sessionId)
  }
}
