/**
 * @module One session, live, under its name: its approvals first (the keys act on one of them,
 * `j`/`k` move between them), then each schedule with its turn's number and its groups side by
 * side as the scheduler made them, each call a row, filtered by status when asked; abort the
 * turn while one runs.
 */
import { useState } from 'preact/hooks'
import type { SessionEvent } from '../../src/contracts/session-events.js'
import { request } from './api.js'
import { ApprovalDialog, type ApprovalRequest } from './approval-dialog.js'
import { useCan } from './caller.js'
import { CALL_FILTER_NAMES, CALL_FILTERS, type CallFilter } from './call-filter.js'
import { useSessionEvents } from './event-stream.js'
import { refreshPending } from './pending.js'
import { ScheduleView } from './schedule-view.js'
import { SessionTitle, useSessionRecord } from './session-title.js'
import type { PermissionRequest, Timeline } from './timeline.js'

/** A session with more calls draws a schedule's calls only once it comes near the viewport. */
const WINDOWED_ABOVE_CALLS = 500

const CONNECTION_TEXT = { live: 'live', reconnecting: 'reconnecting…', closed: 'closed' } as const

/** Pending requests, then those whose answer here lost the race (kept to say so). */
function approvalsToShow(timeline: Timeline, lost: ReadonlyMap<string, { request: PermissionRequest; outcome: string }>): { request: ApprovalRequest; outcome: string | undefined }[] {
  const shown = [...timeline.pending.values()].map((request) => ({ request, outcome: lost.get(request.permissionId)?.outcome }))
  for (const [id, entry] of lost) if (!timeline.pending.has(id)) shown.push(entry)
  return shown
}

function FilterControl({ filter, onChange, timeline }: { readonly filter: CallFilter; readonly onChange: (filter: CallFilter) => void; readonly timeline: Timeline }) {
  const statuses = [...timeline.calls.values()].map((call) => call.status)
  return (
    <label class="call-filter">
      Show
      <select data-testid="status-filter" value={filter} onChange={(event) => onChange(event.currentTarget.value as CallFilter)}>
        {CALL_FILTER_NAMES.map((name) => (
          <option key={name} value={name}>
            {CALL_FILTERS[name].label} ({statuses.filter(CALL_FILTERS[name].keeps).length})
          </option>
        ))}
      </select>
    </label>
  )
}

/** A turn runs while a schedule of it has not ended: the only time an abort does something. */
const turnRuns = (timeline: Timeline): boolean => timeline.pending.size > 0 || timeline.schedules.some((schedule) => schedule.status === 'running')

export function SessionView({ sessionId }: { readonly sessionId: string }) {
  const onEvent = (event: SessionEvent): void => {
    if (event.type === 'PermissionRequested' || event.type === 'PermissionResolved') refreshPending()
  }
  const { timeline, connection, closedReason } = useSessionEvents(sessionId, onEvent)
  const canAbort = useCan('sessions:abort')
  const [lost, setLost] = useState<ReadonlyMap<string, { request: PermissionRequest; outcome: string }>>(new Map())
  const [abortText, setAbortText] = useState<string | undefined>(undefined)
  const [activeId, setActiveId] = useState<string | undefined>(undefined)
  const [filter, setFilter] = useState<CallFilter>('all')
  const [session, setSession] = useSessionRecord(sessionId)
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
  const windowed = timeline.calls.size > WINDOWED_ABOVE_CALLS
  const found = approvals.findIndex(({ request: asked }) => asked.permissionId === activeId)
  const activeIndex = found < 0 ? 0 : found
  const move = (step: 1 | -1): void => {
    const next = approvals[Math.min(Math.max(activeIndex + step, 0), approvals.length - 1)]
    if (next !== undefined) setActiveId(next.request.permissionId)
  }
  return (
    <section class="page session-view" data-testid="session-view" data-session-id={sessionId} data-last-seq={timeline.lastSeq} aria-labelledby="session-title">
      <div class="page-head">
        <SessionTitle sessionId={sessionId} session={session} onRenamed={setSession} />
        <span class={`connection connection-${connection}`} data-testid="connection-state" data-state={connection} role="status">
          {CONNECTION_TEXT[connection]}
        </span>
        {canAbort && turnRuns(timeline) ? (
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
      {timeline.schedules.length === 0 ? <p class="empty">No schedules yet.</p> : <FilterControl filter={filter} onChange={setFilter} timeline={timeline} />}
      {timeline.schedules.map((schedule) => (
        <ScheduleView key={schedule.id} schedule={schedule} timeline={timeline} filter={filter} windowed={windowed} />
      ))}
    </section>
  )
}
