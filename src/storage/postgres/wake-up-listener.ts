/**
 * @module A connection of its own that LISTENs on a few channels and hands each notification's
 * payload to its channel's handler. PostgreSQL drops what was notified while the connection was down: after it
 * connects again, `onReconnect` tells the readers to fetch the rows they may have missed.
 */
import pg from 'pg'

const FIRST_RETRY_MS = 100
const MAX_RETRY_MS = 2_000

export class WakeUpListener {
  readonly #url: string
  readonly #channels: Readonly<Record<string, (payload: string) => void>>
  readonly #onReconnect: () => void
  #client: pg.Client | undefined
  #stopped = false
  #retryMs = FIRST_RETRY_MS
  #retry: NodeJS.Timeout | undefined

  constructor(url: string, channels: Readonly<Record<string, (payload: string) => void>>, onReconnect: () => void) {
    this.#url = url
    this.#channels = channels
    this.#onReconnect = onReconnect
  }

  /** Resolves once listening; rejects when the first connection cannot be made. */
  async start(): Promise<void> {
    await this.#connect()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#retry)
    const client = this.#client
    this.#client = undefined
    await client?.end().catch(() => undefined)
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, application_name: 'toolexec wake-ups', keepAlive: true })
    client.on('error', () => undefined)
    client.on('notification', (message) => this.#channels[message.channel]?.(message.payload ?? ''))
    client.once('end', () => this.#lost(client))
    try {
      await client.connect()
      for (const channel of Object.keys(this.#channels)) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    } catch (error) {
      await client.end().catch(() => undefined)
      throw error
    }
    if (this.#stopped) {
      await client.end().catch(() => undefined)
      return
    }
    this.#client = client
    this.#retryMs = FIRST_RETRY_MS
  }

  #lost(client: pg.Client): void {
    if (client !== this.#client || this.#stopped) return
    this.#client = undefined
    this.#scheduleReconnect()
  }

  #scheduleReconnect(): void {
    if (this.#stopped) return
    const delay = this.#retryMs
    this.#retryMs = Math.min(MAX_RETRY_MS, delay * 2)
    this.#retry = setTimeout(() => {
      this.#connect().then(
        () => {
          if (!this.#stopped) this.#onReconnect()
        },
        () => this.#scheduleReconnect(),
      )
    }, delay)
    this.#retry.unref()
  }
}
