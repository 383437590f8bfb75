/** @module The session view's filter by call status: which calls each choice keeps. */
import type { CallRecordStatus } from '../../src/contracts/api.js'

/** Ended without doing what was asked: shown open, with the reason, and kept by the "failed or denied" filter. */
export const PROBLEM_STATUSES: ReadonlySet<CallRecordStatus> = new Set(['failed', 'denied', 'timed_out', 'interrupted'])

export const CALL_FILTERS = {
  all: { label: 'All calls', keeps: () => true },
  problems: { label: 'Failed, denied or timed out', keeps: (status) => PROBLEM_STATUSES.has(status) },
  awaiting_permission: { label: 'Waiting for approval', keeps: (status) => status === 'awaiting_permission' },
  running: { label: 'Running', keeps: (status) => status === 'running' },
  pending: { label: 'Queued', keeps: (status) => status === 'pending' },
  succeeded: { label: 'Succeeded', keeps: (status) => status === 'succeeded' },
} as const satisfies Record<string, { label: string; keeps: (status: CallRecordStatus) => boolean }>

export type CallFilter = keyof typeof CALL_FILTERS

export const CALL_FILTER_NAMES = Object.keys(CALL_FILTERS) as CallFilter[]
