/**
 * @module One schedule of the session view: its turn's number and its groups side by side as
 * the scheduler made them, each call a row, filtered by status. Drawn again only when the
 * schedule, the filter or one of its own calls changed: an event touches one schedule, and a
 * session of thousands of calls must not redraw all of them for it. In a windowed (big)
 * session its calls are drawn once it comes near the viewport, a space of about their height
 * until then; once drawn they stay (a row opened by hand stays open).
 */
import { Component, createRef, type RefObject } from 'preact'
import { CALL_FILTERS, type CallFilter } from './call-filter.js'
import { CallRow } from './call-row.js'
import { forget, whenNear } from './near-viewport.js'
import type { ScheduleState, Timeline } from './timeline.js'

export interface ScheduleViewProps {
  readonly schedule: ScheduleState
  readonly timeline: Timeline
  readonly filter: CallFilter
  /** Draw the calls only near the viewport. */
  readonly windowed: boolean
}

/** A call row's height with its gap, and the narrowest column of a parallel group (styles.css), for the space of calls not drawn yet. */
const ROW_PX = 66
const COLUMN_PX = 288

/** About the height the groups will take once drawn. */
function estimatedHeight(groups: readonly (readonly string[])[]): number {
  const columns = Math.max(1, Math.floor((window.innerWidth - 80) / COLUMN_PX))
  return groups.reduce((height, group) => height + 16 + Math.ceil(group.length / (group.length > 1 ? columns : 1)) * ROW_PX, 0)
}

function ScheduleSection({ schedule, timeline, filter, drawn, sectionRef }: ScheduleViewProps & { readonly drawn: boolean; readonly sectionRef: RefObject<HTMLElement | null> }) {
  const keeps = CALL_FILTERS[filter].keeps
  const groups = schedule.groups.map((group) => group.filter((id) => keeps(timeline.calls.get(id)?.status ?? 'pending')))
  if (filter !== 'all' && groups.every((group) => group.length === 0)) return null
  return (
    <section ref={sectionRef} class="schedule" data-testid="schedule" data-schedule-id={schedule.id} aria-label={`Schedule ${schedule.id}`}>
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
      {drawn ? null : <div class="schedule-space" data-testid="schedule-space" style={{ height: `${estimatedHeight(groups)}px` }} />}
      {(drawn ? groups : []).map((group, index) => (
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

export class ScheduleView extends Component<ScheduleViewProps, { readonly near: boolean }> {
  // A schedule first drawn while the session was small stays drawn when it grows big.
  override state = { near: !this.props.windowed }
  private readonly section = createRef<HTMLElement>()

  override componentDidMount(): void {
    this.watch()
  }

  override componentDidUpdate(): void {
    this.watch()
  }

  override componentWillUnmount(): void {
    if (this.section.current !== null) forget(this.section.current)
  }

  override shouldComponentUpdate(next: ScheduleViewProps, nextState: { readonly near: boolean }): boolean {
    const { schedule, timeline, filter, windowed } = this.props
    return nextState.near !== this.state.near || next.windowed !== windowed || next.schedule !== schedule || next.filter !== filter || callsChanged(schedule, timeline, next.timeline)
  }

  /** Until drawn, waits for its section to come near (a filter may have drawn none yet). */
  private watch(): void {
    const section = this.section.current
    if (this.drawn() || section === null) return
    whenNear(section, () => this.setState({ near: true }))
  }

  private drawn(): boolean {
    return this.state.near || !this.props.windowed
  }

  override render() {
    return <ScheduleSection {...this.props} drawn={this.drawn()} sectionRef={this.section} />
  }
}
