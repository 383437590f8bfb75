/**
 * A floor call's round trip on the process that runs its session (floor-child.ts, and the
 * owner in floor-cluster-child.ts): the schedule, its call and its first events committed
 * before the 202; the call run; its result and last events committed before any of them is
 * sent, the call's six frames in one write to the session's stream when this process has it.
 */
import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import type { FloorEvent } from './floor-stores.js'
import type { GroupCommits } from './floor-group-commits.js'

const FLAGS = { readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'none', alwaysAsk: false, requiresUserInteraction: false, dependencies: [] }

export interface FloorCall {
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/** SSE frames of stored events, as any stream sends them. */
export const framesOf = (events: readonly Pick<FloorEvent, 'seq' | 'type' | 'data'>[]): string => events.map((event) => `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.data}\n\n`).join('')

export class FloorCalls {
  readonly #commits: GroupCommits
  readonly #streams = new Map<string, ServerResponse>()
  readonly #lastSeq = new Map<string, number>()
  #finished = 0

  constructor(commits: GroupCommits) {
    this.#commits = commits
  }

  get finished(): number {
    return this.#finished
  }

  /** A session this process runs from now on, with no events yet. */
  open(sessionId: string): void {
    this.#lastSeq.set(sessionId, 0)
  }

  runs(sessionId: string): boolean {
    return this.#lastSeq.has(sessionId)
  }

  /** Sends the session's events to `stream` from now on. */
  stream(sessionId: string, stream: ServerResponse): void {
    this.#streams.set(sessionId, stream)
    stream.on('close', () => this.#streams.delete(sessionId))
  }

  /** Commits the call's acceptance, starts it, and gives the 202's body. */
  async accept(sessionId: string, call: FloorCall): Promise<Record<string, unknown>> {
    const scheduleId = `sch_${randomUUID()}`
    const turnId = `turn_${randomUUID()}`
    const groups = [[call.id]]
    const started = [
      this.#nextEvent(sessionId, 'ScheduleAccepted', { scheduleId, turnId, groups }),
      this.#nextEvent(sessionId, 'BatchStarted', { scheduleId, batchIndex: 0, callIds: [call.id] }),
      this.#nextEvent(sessionId, 'ToolCallStarted', { callId: call.id, toolName: call.name, input: call.input, flags: FLAGS }),
    ]
    await this.#commits.accept({ sessionId, scheduleId, groupsJson: JSON.stringify(groups), callId: call.id, name: call.name, inputJson: JSON.stringify(call.input), events: started })
    void this.#run(sessionId, scheduleId, call, started)
    return { scheduleId, sessionId, turnId, status: 'running', groups, calls: [{ id: call.id, name: call.name, flags: FLAGS }] }
  }

  #nextEvent(sessionId: string, type: string, fields: Record<string, unknown>): FloorEvent {
    const seq = (this.#lastSeq.get(sessionId) ?? 0) + 1
    this.#lastSeq.set(sessionId, seq)
    const at = new Date().toISOString()
    return { seq, type, at, data: JSON.stringify({ type, sessionId, seq, at, ...fields }) }
  }

  async #run(sessionId: string, scheduleId: string, call: FloorCall, started: readonly FloorEvent[]): Promise<void> {
    const output = await Promise.resolve('ok')
    const result = {
      callId: call.id,
      toolName: call.name,
      success: true,
      status: 'succeeded',
      isError: false,
      modelContent: output,
      output,
      serialization: { truncated: false, originalBytes: 2, actualBytes: 2, strategy: 'inline' },
      perf: { totalMs: 0, permissionWaitMs: 0, queuedMs: 0 },
      permission: 'none',
      hookContext: [],
    }
    const ended = [
      this.#nextEvent(sessionId, 'ToolCallResult', { callId: call.id, toolName: call.name, result }),
      this.#nextEvent(sessionId, 'BatchCompleted', { scheduleId, batchIndex: 0, callIds: [call.id], stopTurn: false }),
      this.#nextEvent(sessionId, 'ScheduleCompleted', { scheduleId, status: 'completed' }),
    ]
    await this.#commits.end({ sessionId, scheduleId, callId: call.id, resultJson: JSON.stringify(result), events: ended })
    this.#finished++
    this.#streams.get(sessionId)?.write(framesOf([...started, ...ended]))
  }
}
