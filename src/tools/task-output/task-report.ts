/**
 * @module What TaskOutput reports of a background task: its status and its output since the
 * start, read from a Bash task's snapshot or from any other tracked task's outcome.
 */
import type { BackgroundTask } from '../../contracts/ports.js'
import { formatBashEnvelope } from '../bash/model-text.js'
import type { ShellTaskSnapshot } from '../bash/shell-tasks.js'

export type RetrievalStatus = 'success' | 'timeout' | 'not_ready'

export interface TaskOutputReport {
  readonly taskId: string
  readonly taskType: 'local_bash' | 'external'
  readonly description: string
  readonly command?: string | undefined
  readonly status: string
  readonly retrievalStatus: RetrievalStatus
  readonly exitCode: number | null
  /** The output since the start; when too large, its head and tail around a marker. */
  readonly output: string
  /** What the model reads in `<output>` when it is not `output`: Bash's envelope when too large. */
  readonly modelOutput?: string | undefined
  readonly totalBytes: number
  readonly truncated: boolean
  readonly persistedPath?: string | undefined
  readonly error?: string | undefined
}

export function retrievalOf(finished: boolean, block: boolean): RetrievalStatus {
  if (finished) return 'success'
  return block ? 'timeout' : 'not_ready'
}

function envelopeForModel(snapshot: ShellTaskSnapshot): string | undefined {
  const { output } = snapshot
  if (output.omitted === undefined) return undefined
  return formatBashEnvelope({
    head: output.omitted.head,
    tail: output.omitted.tail,
    originalBytes: output.totalBytes,
    persistedPath: output.artifact?.path,
    whereSaved: snapshot.status === 'running' ? 'The full output is saved to a file when the task ends.' : undefined,
  })
}

export function shellTaskReport(snapshot: ShellTaskSnapshot, retrievalStatus: RetrievalStatus): TaskOutputReport {
  const { output } = snapshot
  return {
    taskId: snapshot.taskId,
    taskType: 'local_bash',
    description: snapshot.description,
    command: snapshot.command,
    status: snapshot.status,
    retrievalStatus,
    exitCode: snapshot.exitCode,
    output: output.text,
    modelOutput: envelopeForModel(snapshot),
    totalBytes: output.totalBytes,
    truncated: output.omitted !== undefined,
    persistedPath: output.artifact?.path,
    error: snapshot.error,
  }
}

export interface ExternalOutcome {
  readonly settled: boolean
  readonly value?: unknown
  readonly error?: unknown
}

/** Watches a task that is not a Bash command: its outcome is whatever `done` settles with. */
export function watchExternal(task: BackgroundTask): { readonly outcome: () => ExternalOutcome } {
  let outcome: ExternalOutcome = { settled: false }
  task.done.then(
    (value: unknown) => {
      outcome = { settled: true, value }
    },
    (error: unknown) => {
      outcome = { settled: true, error }
    },
  )
  return { outcome: () => outcome }
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (value instanceof Error) return value.message
  // Reached by what has no JSON form (a function, a symbol), whose own toString tells what it is.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  return JSON.stringify(value, null, 2) ?? String(value)
}

export function externalTaskReport(task: BackgroundTask, outcome: ExternalOutcome, retrievalStatus: RetrievalStatus): TaskOutputReport {
  const failed = outcome.error !== undefined
  const output = textOf(failed ? outcome.error : outcome.value)
  let status = 'running'
  if (outcome.settled) status = failed ? 'failed' : 'completed'
  return {
    taskId: task.id,
    taskType: 'external',
    description: task.description,
    status,
    retrievalStatus,
    exitCode: null,
    output,
    totalBytes: Buffer.byteLength(output),
    truncated: false,
    error: failed ? output : undefined,
  }
}

/** The model's view, one tag per line as background task tools write it. */
export function formatTaskReport(report: TaskOutputReport): string {
  const lines = [
    `<retrieval_status>${report.retrievalStatus}</retrieval_status>`,
    `<task_id>${report.taskId}</task_id>`,
    `<task_type>${report.taskType}</task_type>`,
    `<status>${report.status}</status>`,
  ]
  if (report.exitCode !== null) lines.push(`<exit_code>${report.exitCode}</exit_code>`)
  if (report.error !== undefined && report.taskType === 'local_bash') lines.push(`<error>${report.error}</error>`)
  lines.push('<output>', (report.modelOutput ?? report.output).replace(/\s+$/, ''), '</output>')
  return lines.join('\n')
}
