/**
 * @module One schedule of the session view: its turn's number and its groups side by side as
 * the scheduler made them, each call a row, filtered by status. Drawn again only when the
 * schedule, the filter or one of its own calls changed: an event touches one schedule, and a
 * session of thousands of calls must not redraw all of them for it.
 */
import { Component } from 'preact'
import { CALL_FILTERS, type CallFilter } from './call-filter.js'
import { CallRow } from './call-row.js'
import type { ScheduleState, Timeline } from './timeline.js'

export interface ScheduleViewProps {
  readonly schedule: ScheduleState
  readonly timeline: Timeline
  readonly filter: CallFilter
}

function ScheduleSection({ schedule, timeline, filter }: ScheduleViewProps) {
  const keeps = CALL_FILTERS[filter].keeps
  const groups = schedule.groups.map((group) => group.filter((id) => keeps(timeline.calls.get(id)?.status ?? 'pending')))
  if (filter !== 'all' && groups.every((group) => group.length === 0)) return null
  return (
    <section class="schedule" data-testid="schedule" data-schedule-id={schedule.id} aria-label={`Schedule ${schedule.id}`}>
      <header>
        <h3>
          Schedule <code>{schedule.id}</code>
        </h3>
        <span class={`status status-${schedule.status}`}>{schedule.status}</span>
        <span class="meta">
          <span class="turn" data-testid="turn-number" title={`turn ${schedule.turnId}`}>
            turn {schedule.turn}
          </span>{' '}
          · {new Date(schedule.at).toLocaleTimeString()}
        </span>
      </header>
      {groups.map((group, index) => (
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

/** Whether any call of `schedule` is another record in `next` than in `previous` (the timeline keeps unchanged records as they were). */
function callsChanged(schedule: ScheduleState, previous: Timeline, next: Timeline): boolean {
  return schedule.groups.some((group) => group.some((id) => previous.calls.get(id) !== next.calls.get(id)))
}

export class ScheduleView extends Component<ScheduleViewProps> {
  override shouldComponentUpdate(next: ScheduleViewProps): boolean {
    const { schedule, timeline, filter } = this.props
    return next.schedule !== schedule || next.filter !== filter || callsChanged(schedule, timeline, next.timeline)
  }

  override render() {
    return <ScheduleSection {...this.props} />
  }
}
