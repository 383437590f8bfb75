/** @module The pending approvals across sessions: the header's badge and the tab title. */
import { useEffect, useState } from 'preact/hooks'
import type { PermissionRequestRecord } from '../../src/contracts/api.js'
import { request } from './api.js'
import { usePolling } from './polling.js'

export const BASE_TITLE = 'toolexec'

export function titleFor(pending: number): string {
  return pending > 0 ? `(${pending}) ${BASE_TITLE}` : BASE_TITLE
}

const refreshListeners = new Set<() => void>()

/** A view that saw an approval asked or answered asks the badge to count again now. */
export function refreshPending(): void {
  for (const listener of refreshListeners) listener()
}

export function usePendingCount(enabled: boolean): number {
  const [pending, setPending] = useState(0)
  const reload = usePolling(async () => {
    const reply = await request<{ requests: PermissionRequestRecord[] }>('GET', '/permissions')
    if (reply.body !== undefined) setPending(reply.body.requests.length)
  }, enabled)
  useEffect(() => {
    refreshListeners.add(reload)
    return () => refreshListeners.delete(reload)
  }, [reload])
  useEffect(() => {
    document.title = titleFor(pending)
  }, [pending])
  return pending
}
