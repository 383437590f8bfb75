/**
 * @module The approvals waiting for a person, across the sessions the token may see, oldest
 * first: the header's queue, the sessions list's "waiting since" and the tab title.
 */
import { useEffect, useState } from 'preact/hooks'
import type { PermissionRequestRecord } from '../../src/contracts/api.js'
import { request } from './api.js'
import { usePolling } from './polling.js'

export const BASE_TITLE = 'toolexec'

export function titleFor(pending: number): string {
  return pending > 0 ? `(${pending}) ${BASE_TITLE}` : BASE_TITLE
}

/** "1 pending approval", "2 pending approvals": the queue control's accessible name. */
export function pendingLabel(count: number): string {
  return `${count} pending approval${count === 1 ? '' : 's'}`
}

const refreshListeners = new Set<() => void>()

/** A view that saw an approval asked or answered asks the queue to load again now. */
export function refreshPending(): void {
  for (const listener of refreshListeners) listener()
}

const oldestFirst = (a: PermissionRequestRecord, b: PermissionRequestRecord): number => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)

export function usePendingQueue(enabled: boolean): readonly PermissionRequestRecord[] {
  const [pending, setPending] = useState<readonly PermissionRequestRecord[]>([])
  const reload = usePolling(async () => {
    const reply = await request<{ requests: PermissionRequestRecord[] }>('GET', '/permissions?status=pending')
    if (reply.body !== undefined) setPending([...reply.body.requests].sort(oldestFirst))
  }, enabled)
  useEffect(() => {
    refreshListeners.add(reload)
    return () => refreshListeners.delete(reload)
  }, [reload])
  useEffect(() => {
    document.title = titleFor(pending.length)
  }, [pending.length])
  return pending
}
