/** @module In-memory state of the sessions: each one's turn controller and its queue of schedules. */
/** In-memory state of a session: its turn's abort controller and its schedule queue. */
export class LiveSession {
  readonly id: string
  controller = new AbortController()
  /** Schedules of one session run one after another in arrival order. */
  tail: Promise<void> = Promise.resolve()
  running = 0

  constructor(id: string) {
    this.id = id
  }

  enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.tail.then(task, task)
    this.tail = next.catch(() => {})
    return next
  }
}

export class LiveSessions {
  readonly #sessions = new Map<string, LiveSession>()

  get(id: string): LiveSession {
    let session = this.#sessions.get(id)
    if (session === undefined) {
      session = new LiveSession(id)
      this.#sessions.set(id, session)
    }
    return session
  }

  peek(id: string): LiveSession | undefined {
    return this.#sessions.get(id)
  }

  all(): LiveSession[] {
    return [...this.#sessions.values()]
  }

  forget(id: string): void {
    this.#sessions.delete(id)
  }
}
