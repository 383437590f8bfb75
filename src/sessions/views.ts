/** @module Stored records as the API shows them. */
import { isDeepStrictEqual } from 'node:util'
import type { CallRecord, HistoryEntry, PermissionRequestRecord, ScheduleReply, Session, ToolInfo } from '../contracts/api.js'
import type { CallRow, PermissionRow, ScheduleRecord, SessionRecord } from '../contracts/store.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import type { DecidedBy } from '../contracts/events.js'
import { inputHashOf } from '../contracts/input-hash.js'
import { isErrorForHistory } from '../executor/history.js'
import { DEFAULT_RESULT_BUDGET } from '../executor/result-serialization.js'
import { declaredFlags } from '../executor/tool-flags.js'
import { ruleChoicesOf } from '../permissions/rule-choices.js'
import { resultView } from './result-view.js'

export function sessionView(record: SessionRecord, counts: Session['counts'], running: boolean, lastEventId: number): Session {
  const status: Session['status'] = counts.pendingPermissions > 0 ? 'awaiting_permission' : running ? 'running' : 'idle'
  return { ...record, status, counts, lastEventId }
}

export function callView(row: CallRow): CallRecord {
  const view: CallRecord = { id: row.id, scheduleId: row.scheduleId, name: row.name, input: row.input, status: row.status }
  if (row.resolvedInput !== undefined) Object.assign(view, resolvedInputView(row.input, row.resolvedInput))
  if (row.flags !== undefined) view.flags = row.flags
  if (row.startedAt !== null) view.startedAt = row.startedAt
  if (row.completedAt !== null) view.completedAt = row.completedAt
  if (row.result !== undefined) {
    view.modelContent = row.result.modelContent
    view.result = resultView(row.result)
  }
  return view
}

type ResolvedInputView = Pick<CallRecord, 'resolvedInput' | 'resolvedInputRemoved'>

/**
 * The resolved input as a reply carries it: only the top-level fields the resolution changed
 * or added, and the names of those it dropped; `input` holds the rest. A 2 MB Write whose
 * path was made absolute answers `{file_path}`, not a second copy of its content. An input
 * that is not an object is given whole.
 */
export function resolvedInputView(input: unknown, resolved: unknown): ResolvedInputView {
  if (!isPlainObject(input) || !isPlainObject(resolved)) return { resolvedInput: resolved }
  const changed: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(resolved)) {
    if (!Object.hasOwn(input, key) || !isDeepStrictEqual(input[key], value)) changed[key] = value
  }
  const removed = Object.keys(input).filter((key) => !Object.hasOwn(resolved, key))
  return removed.length === 0 ? { resolvedInput: changed } : { resolvedInput: changed, resolvedInputRemoved: removed }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function scheduleView(schedule: ScheduleRecord, calls: readonly CallRow[]): ScheduleReply {
  return {
    scheduleId: schedule.id,
    sessionId: schedule.sessionId,
    turnId: schedule.turnId,
    status: schedule.status,
    groups: schedule.groups,
    calls: calls.map(callView),
  }
}

/** `entry` is the tool as registered now, for its R28 history rule; undefined for one no longer there. */
export function historyView(row: CallRow & { turnId: string }, entry?: ToolEntry): HistoryEntry | undefined {
  const result = row.result
  if (result === undefined) return undefined
  return {
    scheduleId: row.scheduleId,
    turnId: row.turnId,
    callId: row.id,
    toolName: row.name,
    input: row.input,
    status: row.status,
    isError: isErrorForHistory(result, entry),
    modelContent: result.modelContent,
    result: resultView(result),
  }
}

export function permissionView(row: PermissionRow): PermissionRequestRecord {
  const view: PermissionRequestRecord = {
    id: row.id,
    sessionId: row.sessionId,
    callId: row.callId,
    toolName: row.toolName,
    input: row.input,
    inputHash: inputHashOf(row.input),
    riskLevel: row.riskLevel,
    reason: row.reason,
    status: row.status,
    createdAt: row.createdAt,
  }
  if (row.preview !== undefined) view.preview = row.preview
  if (row.suggestedRule !== null) {
    view.suggestedRule = row.suggestedRule
    view.suggestedRules = ruleChoicesOf(row.toolName, row.input, row.suggestedRule)
  }
  if (row.decidedBy !== null) view.decidedBy = row.decidedBy as DecidedBy
  if (row.message !== null) view.message = row.message
  if (row.scope !== null) view.scope = row.scope
  if (row.decidedAt !== null) view.decidedAt = row.decidedAt
  if (row.deciderId !== null) view.deciderId = row.deciderId
  if (row.deciderName !== null) view.deciderName = row.deciderName
  return view
}

export function toolView(entry: ToolEntry): ToolInfo {
  const view: ToolInfo = {
    name: entry.name,
    description: entry.description,
    inputSchema: entry.inputSchema,
    flags: declaredFlags(entry),
    resultBudget: entry.resultBudget ?? DEFAULT_RESULT_BUDGET,
  }
  if (entry.timeout !== undefined) view.timeout = entry.timeout
  return view
}
