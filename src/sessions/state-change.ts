/** @module What an event changes in the store, run by the journal in the event's own transaction. */
import type { Store } from '../contracts/store.js'

export type StateChange = (store: Store, at: string) => void
