/**
 * @module A read a call needs before it starts (its permission: rules, grants, the session's
 * mode), asked again while the database is away (a restart, a lost connection): the call waits
 * for it, as its start waits to be recorded, instead of failing for the outage.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { isStorageUnavailable } from '../contracts/store.js'

const FIRST_RETRY_MS = 50
const MOST_RETRY_MS = 1_000

/** `read()`, asked again while it fails for want of the database; its error once `signal` aborts. */
export async function readThroughOutage<T>(read: () => T | Promise<T>, signal: AbortSignal): Promise<T> {
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(MOST_RETRY_MS, delay * 2)) {
    try {
      return await read()
    } catch (error) {
      if (!isStorageUnavailable(error) || signal.aborted) throw error
      await sleep(delay, undefined, { signal, ref: false }).catch(() => undefined)
    }
  }
}
