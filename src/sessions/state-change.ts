/** @module What an event changes in the store: writes recorded into the unit of work that also writes the event. */
import type { UnitOfWork } from '../contracts/store.js'

export type StateChange = (unit: UnitOfWork, at: string) => void
