/** @module What an event changes in the store, run by the journal in the event's own transaction. */
import type { SqliteStore } from '../storage/sqlite-store.js'

export type StateChange = (store: SqliteStore, at: string) => void
