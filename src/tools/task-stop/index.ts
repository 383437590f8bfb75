/**
 * @module TaskStop {task_id} (SPEC A1: F/F/T/session; 100000 bytes, truncate; 10000 ms):
 * ends a background task of this session. A Bash task is killed with its whole process
 * tree; any other tracked task is cancelled through the registry (R1). A task this process
 * does not run is answered from its record: not running, because it ended or because it was
 * lost with the server that ran it.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { Display } from '../../contracts/display.js'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type ToolBusinessFailure, type ToolEntry } from '../../contracts/tool-entry.js'
import { notFound } from '../task-output/index.js'
import { lostReason, readableHere, recordedStatus } from '../task-output/recorded-task.js'
import { waitForTask } from '../task-output/wait-for-task.js'

export const TASK_STOP_TOOL_NAME = 'TaskStop'
// Within TaskStop's 10000 ms: the tree gets SIGKILL 300 ms after SIGTERM.
const STOP_WAIT_MS = 5_000

const TaskStopInputSchema = Type.Object({ task_id: Type.String({ minLength: 1, description: 'The id of the background task to stop' }) }, { additionalProperties: false })
export type TaskStopInput = Static<typeof TaskStopInputSchema>

export interface TaskStopOutput {
  readonly taskId: string
  readonly command?: string | undefined
  readonly status: string
  readonly message: string
}

const DESCRIPTION = 'Stops a background task of this session (a Bash command started with run_in_background, with everything it started).'

async function stopTask(input: TaskStopInput, ctx: ToolCallContext): Promise<TaskStopOutput | ToolBusinessFailure> {
  const taskId = input.task_id
  const shell = ctx.services.shellTasks?.get(ctx.sessionId, taskId)
  if (shell !== undefined) {
    if (shell.status !== 'running') {
      return { result: false, errorCode: 'TOOL_ERR_TASK_NOT_RUNNING', message: `Task ${taskId} is not running (status: ${shell.status})` }
    }
    shell.cancel()
    await waitForTask(shell.done, STOP_WAIT_MS, ctx.signal)
    return { taskId, command: shell.command, status: shell.status, message: `Successfully stopped task: ${taskId} (${shell.command})` }
  }
  const registry = ctx.services.backgroundTasks
  const task = registry?.get(taskId)
  if (registry === undefined || task === undefined || task.sessionId !== ctx.sessionId) return notRunningAsRecorded(taskId, ctx)
  registry.cancel(taskId, 'Stopped by TaskStop')
  return { taskId, status: 'killed', message: `Successfully stopped task: ${taskId} (${task.description})` }
}

/** A task this process does not run: as its record says, it is not running (it ended, or it was lost with its server). */
async function notRunningAsRecorded(taskId: string, ctx: ToolCallContext): Promise<ToolBusinessFailure> {
  const record = await ctx.services.shellTasks?.recorded(ctx.sessionId, taskId)
  if (record === undefined) return notFound(taskId)
  const status = recordedStatus(record)
  const notRunning = `Task ${taskId} is not running (status: ${status})`
  const message = status === 'lost' ? `${notRunning}: ${lostReason(record, readableHere(record.outputPath))}` : notRunning
  return { result: false, errorCode: 'TOOL_ERR_TASK_NOT_RUNNING', message }
}

function stopDisplay(output: TaskStopOutput): Display {
  const display: Display = { kind: 'background_task', taskId: output.taskId, status: output.status }
  return output.command === undefined ? display : { ...display, command: output.command }
}

/** @example registry.register(createTaskStopTool()) */
export function createTaskStopTool(): ToolEntry<TaskStopInput, TaskStopOutput> {
  return defineTool({
    name: TASK_STOP_TOOL_NAME,
    description: DESCRIPTION,
    inputSchema: TaskStopInputSchema,
    readOnly: false,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'session' },
    timeout: { kind: 'deadline', defaultMs: 10_000 },
    resultBudget: { maxModelBytes: 100_000, maxInlineBytes: 100_000, strategy: 'truncate', previewDirection: 'head' },
    formatModelContent: (output: TaskStopOutput) => output.message,
    buildDisplay: ({ output }) => stopDisplay(output),
    handler: stopTask,
  })
}
