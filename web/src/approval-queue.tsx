/**
 * @module The header's queue of what waits for a person: a control naming how many approvals
 * are pending across the sessions the token may see, which opens the oldest in a modal to
 * answer there, whatever the page; `j`/`k` or Previous/Next walk the queue. An answer that
 * lost the race stays shown until dismissed; an empty queue says so.
 */
import { useState } from 'preact/hooks'
import type { PermissionRequestRecord } from '../../src/contracts/api.js'
import { ApprovalDialog, approvalOf, type ApprovalRequest } from './approval-dialog.js'
import { Modal } from './modal.js'
import { pendingLabel } from './pending.js'
import { sessionHref } from './route.js'

export function QueueButton({ count, onOpen }: { readonly count: number; readonly onOpen: () => void }) {
  return (
    <button type="button" class="queue-button" data-testid="approval-queue" hidden={count === 0} aria-label={pendingLabel(count)} title="Answer the oldest pending approval" onClick={onOpen}>
      <span class="badge" data-testid="pending-badge" aria-hidden="true">
        {count}
      </span>
      <span class="queue-word" aria-hidden="true">
        waiting
      </span>
    </button>
  )
}

/** The request shown: the one asked for while it is pending, else the oldest. */
function shownIndex(requests: readonly PermissionRequestRecord[], requestId: string | undefined): number {
  const index = requests.findIndex((request) => request.id === requestId)
  return index < 0 ? 0 : index
}

interface QueueModalProps {
  readonly requests: readonly PermissionRequestRecord[]
  readonly startAt: string | undefined
  readonly onClose: () => void
}

function QueueNav({ index, count, onMove }: { readonly index: number; readonly count: number; readonly onMove: (step: 1 | -1) => void }) {
  return (
    <div class="queue-nav">
      <button type="button" class="secondary" data-testid="queue-previous" aria-keyshortcuts="k" disabled={index === 0} onClick={() => onMove(-1)}>
        Previous approval
      </button>
      <span data-testid="queue-position">
        {index + 1} of {count}
      </span>
      <button type="button" class="secondary" data-testid="queue-next" aria-keyshortcuts="j" disabled={index >= count - 1} onClick={() => onMove(1)}>
        Next approval
      </button>
    </div>
  )
}

export function QueueModal({ requests, startAt, onClose }: QueueModalProps) {
  const [requestId, setRequestId] = useState(startAt)
  const [lost, setLost] = useState<{ request: ApprovalRequest; outcome: string } | undefined>(undefined)
  const index = shownIndex(requests, requestId)
  const record = requests[index]
  const move = (step: 1 | -1): void => {
    const next = requests[Math.min(Math.max(index + step, 0), requests.length - 1)]
    if (next !== undefined) setRequestId(next.id)
  }
  const onOutcome = (_permissionId: string, outcome: string | undefined): void => {
    setLost(outcome === undefined || record === undefined ? undefined : { request: approvalOf(record), outcome })
  }
  const shown = lost ?? (record === undefined ? undefined : { request: approvalOf(record), outcome: undefined })
  return (
    <Modal testId="queue-dialog" label="Pending approvals" onClose={onClose}>
      <div class="queue-head">
        <h2>Pending approvals</h2>
        <button type="button" class="secondary" data-testid="queue-close" onClick={onClose}>
          Close
        </button>
      </div>
      {shown === undefined ? (
        <p class="empty" data-testid="queue-empty">
          Nothing waits for a person.
        </p>
      ) : (
        <>
          {lost === undefined ? <QueueNav index={index} count={requests.length} onMove={move} /> : null}
          <p class="meta">
            Session{' '}
            <a href={sessionHref(shown.request.sessionId)} data-testid="queue-session" onClick={onClose}>
              {shown.request.sessionId}
            </a>
          </p>
          <ApprovalDialog key={shown.request.permissionId} request={shown.request} outcome={shown.outcome} onOutcome={onOutcome} active onMove={move} />
        </>
      )}
    </Modal>
  )
}
