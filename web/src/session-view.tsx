/**
 * @module One session, live: its approvals first (the keys act on one of them, `j`/`k` move
 * between them), then each schedule with its groups side by side as the scheduler made them,
 * each call a row; abort the running turn.
 */
import { useState } from 'preact/hooks'
import type { SessionEvent } from '../../src/contracts/session-events.js'
import { request } from './api.js'
import { ApprovalDialog, type ApprovalRequest } from './approval-dialog.js'
import { useCan } from './caller.js'
import { CallRow } from './call-row.js'
import { useSessionEvents } from './event-stream.js'
import { refreshPending } from './pending.js'
import type { PermissionRequest, ScheduleState, Timeline } from './timeline.js'

const CONNECTION_TEXT = { live: 'live', reconnecting: 'reconnecting…', closed: 'closed' } as const

function ScheduleView({ schedule, timeline }: { readonly schedule: ScheduleState; readonly timeline: Timeline }) {
  return (
    <section class="schedule" data-testid="schedule" data-schedule-id={schedule.id} aria-label={`Schedule ${schedule.id}`}>
      <header>
        <h3>
          Schedule <code>{schedule.id}</code>
        </h3>
        <span class={`status status-${schedule.status}`}>{schedule.status}</span>
        <span class="meta">
          turn {schedule.turnId} · {new Date(schedule.at).toLocaleTimeString()}
        </span>
      </header>
      {schedule.groups.map((group, index) => (
        <div key={index} class={group.length > 1 ? 'group parallel' : 'group'} data-testid="group" data-group-index={index} aria-label={`Group ${index + 1}${group.length > 1 ? ', in parallel' : ''}`}>
          {group.map((id) => {
            const call = timeline.calls.get(id)
            return call === undefined ? null : <CallRow key={id} call={call} />
          })}
        </div>
      ))}
    </section>
  )
}

/** Pending requests, then those whose answer here lost the race (kept to say so). */
function approvalsToShow(timeline: Timeline, lost: ReadonlyMap<string, { request: PermissionRequest; outcome: string }>): { request: ApprovalRequest; outcome: string | undefined }[] {
  const shown = [...timeline.pending.values()].map((request) => ({ request, outcome: lost.get(request.permissionId)?.outcome }))
  for (const [id, entry] of lost) if (!timeline.pending.has(id)) shown.push(entry)
  return shown
}

export function SessionView({ sessionId }: { readonly sessionId: string }) {
  const onEvent = (event: SessionEvent): void => {
    if (event.type === 'PermissionRequested' || event.type === 'PermissionResolved') refreshPending()
  }
  const { timeline, connection, closedReason } = useSessionEvents(sessionId, onEvent)
  const canAbort = useCan('sessions:abort')
  const [lost, setLost] = useState<ReadonlyMap<string, { request: PermissionRequest; outcome: string }>>(new Map())
  const [abortText, setAbortText] = useState<string | undefined>(undefined)
  const [activeId, setActiveId] = useState<string | undefined>(undefined)
  const onOutcome = (permissionId: string, outcome: string | undefined): void => {
    const next = new Map(lost)
    const asked = timeline.pending.get(permissionId) ?? lost.get(permissionId)?.request
    if (outcome === undefined || asked === undefined) next.delete(permissionId)
    else next.set(permissionId, { request: asked, outcome })
    setLost(next)
  }
  const abort = async (): Promise<void> => {
    const reply = await request<{ aborted: boolean }>('POST', `/sessions/${encodeURIComponent(sessionId)}/abort`)
    if (reply.body === undefined) setAbortText(`The server refused (${reply.status}): ${reply.error ?? ''}`)
    else setAbortText(reply.body.aborted ? 'The turn was aborted.' : 'Nothing was running.')
  }
  const approvals = approvalsToShow(timeline, lost)
  const found = approvals.findIndex(({ request: asked }) => asked.permissionId === activeId)
  const activeIndex = found < 0 ? 0 : found
  const move = (step: 1 | -1): void => {
    const next = approvals[Math.min(Math.max(activeIndex + step, 0), approvals.length - 1)]
    if (next !== undefined) setActiveId(next.request.permissionId)
  }
  return (
    <section class="page session-view" data-testid="session-view" data-session-id={sessionId} aria-labelledby="session-title">
      <div class="page-head">
        <h1 id="session-title">
          Session <code>{sessionId}</code>
        </h1>
        <span class={`connection connection-${connection}`} data-testid="connection-state" data-state={connection} role="status">
          {CONNECTION_TEXT[connection]}
        </span>
        {canAbort ? (
          <button type="button" class="danger" data-testid="abort-turn" onClick={() => void abort()}>
            Abort turn
          </button>
        ) : null}
      </div>
      {abortText === undefined ? null : <p role="status">{abortText}</p>}
      {closedReason === undefined ? null : (
        <p class="error" role="alert">
          {closedReason}
        </p>
      )}
      {approvals.map(({ request: asked, outcome }, index) => (
        <ApprovalDialog key={asked.permissionId} request={asked} outcome={outcome} onOutcome={onOutcome} active={index === activeIndex} onMove={move} />
      ))}
      {timeline.schedules.length === 0 ? <p class="empty">No schedules yet.</p> : null}
      {timeline.schedules.map((schedule) => (
        <ScheduleView key={schedule.id} schedule={schedule} timeline={timeline} />
      ))}
    </section>
  )
}
