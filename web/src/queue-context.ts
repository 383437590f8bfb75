/** @module The pending approvals and the way to open the header's queue, for every page. */
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { PermissionRequestRecord } from '../../src/contracts/api.js'

export interface Queue {
  /** Oldest first. */
  readonly requests: readonly PermissionRequestRecord[]
  /** Opens the queue on `requestId`, or on the oldest request. */
  readonly open: (requestId?: string) => void
}

export const QueueContext = createContext<Queue>({ requests: [], open: () => undefined })

export function useQueue(): Queue {
  return useContext(QueueContext)
}
