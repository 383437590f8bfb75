/**
 * @module TaskOutput {task_id, block?, timeout?} (SPEC A1: T/F/T/none; 400000 bytes,
 * artifact, head; no executor timeout): the status of a background task and its output
 * since the start. With `block` (the default) it waits up to `timeout` ms for the task to end.
 */
import { Type, type Static } from '@sinclair/typebox'
import { BASH_OUTPUT_MAX_BYTES, type Display } from '../../contracts/display.js'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type PersistedContentArgs, type ToolBusinessFailure, type ToolEntry } from '../../contracts/tool-entry.js'
import { cutTailToBytes, formatBytesBinary } from '../../output/bytes.js'
import { PREVIEW_CHARS, previewFirstChars } from '../../output/persisted-output.js'
import { externalTaskReport, formatTaskReport, retrievalOf, shellTaskReport, watchExternal, type TaskOutputReport } from './task-report.js'
import { recordedTaskReport } from './recorded-task.js'
import { waitForTask } from './wait-for-task.js'

export const TASK_OUTPUT_TOOL_NAME = 'TaskOutput'
export const DEFAULT_WAIT_MS = 30_000
export const MAX_WAIT_MS = 600_000

const TaskOutputInputSchema = Type.Object(
  {
    task_id: Type.String({ minLength: 1, description: 'The id a background command was given' }),
    block: Type.Optional(Type.Boolean({ description: 'Wait for the task to end (default true)' })),
    timeout: Type.Optional(Type.Number({ description: `How long to wait, in ms (default ${DEFAULT_WAIT_MS}, at most ${MAX_WAIT_MS})` })),
  },
  { additionalProperties: false },
)
export type TaskOutputInput = Static<typeof TaskOutputInputSchema>

const DESCRIPTION =
  'Returns the status (running, completed, failed, killed, or lost when the server that ran it stopped) and the output since the start of a background task, ' +
  'such as a command started by Bash with run_in_background. By default it waits for the task to end, at most `timeout` ms; ' +
  'with block: false it answers at once.'

function waitMs(timeout: number | undefined): number {
  const wanted = timeout !== undefined && Number.isFinite(timeout) ? timeout : DEFAULT_WAIT_MS
  return Math.max(0, Math.min(Math.trunc(wanted), MAX_WAIT_MS))
}

export function notFound(taskId: string): ToolBusinessFailure {
  return { result: false, errorCode: 'TOOL_ERR_TASK_NOT_FOUND', message: `No task found with ID: ${taskId}` }
}

async function readTask(input: TaskOutputInput, ctx: ToolCallContext): Promise<TaskOutputReport | ToolBusinessFailure> {
  const block = input.block !== false
  const shell = ctx.services.shellTasks?.get(ctx.sessionId, input.task_id)
  if (shell !== undefined) {
    const finished = shell.status !== 'running' || (block && (await waitForTask(shell.done, waitMs(input.timeout), ctx.signal)))
    return shellTaskReport(shell.snapshot(), retrievalOf(finished, block))
  }
  const task = ctx.services.backgroundTasks?.get(input.task_id)
  if (task === undefined || task.sessionId !== ctx.sessionId) return readRecorded(input.task_id, ctx)
  const watched = watchExternal(task)
  const finished = block && (await waitForTask(task.done, waitMs(input.timeout), ctx.signal))
  return externalTaskReport(task, watched.outcome(), retrievalOf(finished, block))
}

async function readRecorded(taskId: string, ctx: ToolCallContext): Promise<TaskOutputReport | ToolBusinessFailure> {
  const record = await ctx.services.shellTasks?.recorded(ctx.sessionId, taskId)
  return record === undefined ? notFound(taskId) : recordedTaskReport(record)
}

/** R32 with TaskOutput's binary sizes (A2), for output beyond the budget. */
export function formatPersistedTaskOutput(args: PersistedContentArgs): string {
  const { preview, hasMore } = previewFirstChars(args.content, PREVIEW_CHARS)
  const lines = [
    '<persisted-output>',
    `Output too large (${formatBytesBinary(args.originalBytes)}). Full output saved to: ${args.persistedPath}`,
    '',
    `Preview (first ${formatBytesBinary(PREVIEW_CHARS)}):`,
    preview,
  ]
  if (hasMore) lines.push('...')
  lines.push('</persisted-output>')
  return lines.join('\n')
}

function taskOutputDisplay(report: TaskOutputReport): Display {
  const output = cutTailToBytes(report.output, BASH_OUTPUT_MAX_BYTES)
  return { kind: 'background_task_output', taskId: report.taskId, status: report.status, output, truncated: report.truncated || output.length < report.output.length }
}

/** @example registry.register(createTaskOutputTool()) */
export function createTaskOutputTool(): ToolEntry<TaskOutputInput, TaskOutputReport> {
  return defineTool({
    name: TASK_OUTPUT_TOOL_NAME,
    description: DESCRIPTION,
    inputSchema: TaskOutputInputSchema,
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'none' },
    timeout: { kind: 'none' },
    resultBudget: { maxModelBytes: 400_000, maxInlineBytes: 400_000, strategy: 'artifact', previewDirection: 'head' },
    retention: 'session',
    formatModelContent: formatTaskReport,
    formatPersistedModelContent: formatPersistedTaskOutput,
    buildDisplay: ({ output }) => taskOutputDisplay(output),
    handler: readTask,
  })
}
