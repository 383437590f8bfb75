/**
 * @module The public entry: an executor built once with its ports (R1, R2).
 * @example
 *   const executor = createExecutor({ registry, permissions: createModePermissionService(), broker: createDenyingBroker() })
 *   const outcome = await executor.executeSchedule(calls, { sessionId: 's1' })
 */
import type { ToolCall } from '../contracts/tool-call.js'
import type { BackgroundTask, BackgroundTaskInfo, TurnContext } from '../contracts/ports.js'
import type { ToolExecutionResult } from '../contracts/result.js'
import type { ToolFlags } from '../contracts/flags.js'
import type { BackgroundTaskRegistry } from './background-tasks.js'
import { executeBatch, runGroups, type ScheduleOutcome } from './batch-runner.js'
import { executeToolCall } from './call-runner.js'
import { resolveDeps, type ExecutorDeps, type ExecutorPorts } from './deps.js'
import { planSchedule } from './scheduler.js'
import { dependencyFor, flagsFor, isEarlyDispatchEligible } from './tool-flags.js'

export interface Executor {
  /** One call through the whole pipeline. */
  execute(call: ToolCall, turn: TurnContext): Promise<ToolExecutionResult>
  /** A set of calls concurrently, at most maxConcurrency at once. */
  executeBatch(calls: readonly ToolCall[], turn: TurnContext): Promise<ToolExecutionResult[]>
  /** Grouped as planned, group after group, with batch events. */
  /** With `turnStopped`, an earlier result of this turn already asked for a stop (R9). */
  executeSchedule(calls: readonly ToolCall[], turn: TurnContext, turnStopped?: boolean): Promise<ScheduleOutcome>
  /** Adopts a background task this turn did not start. */
  trackExternalBackgroundTask(task: BackgroundTask): BackgroundTaskInfo
  /** The groups executeSchedule would run; throws a coded error on a cycle. */
  plan(calls: readonly ToolCall[]): string[][]
  /** Flags of a call as the registry and its input declare them; undefined for unknown tools. */
  flagsOf(call: ToolCall): ToolFlags | undefined
  /** R11: may this call start while the model is still streaming? */
  canDispatchEarly(call: ToolCall, turn: TurnContext): Promise<boolean>
  readonly backgroundTasks: BackgroundTaskRegistry
  readonly deps: ExecutorDeps
}

export function createExecutor(ports: ExecutorPorts): Executor {
  const deps = resolveDeps(ports)
  const backgroundTasks = deps.backgroundTasks
  const plan = (calls: readonly ToolCall[]): string[][] => planSchedule(calls.map((call) => dependencyFor(call.id, call.name, deps.registry.get(call.name), call.input, call.dependsOn)))
  return {
    deps,
    backgroundTasks,
    plan,
    execute: (call, turn) => executeToolCall(call, turn, deps),
    executeBatch: (calls, turn) => executeBatch(calls, turn, deps),
    // async so that a planning error (a cycle) rejects the promise instead of throwing.
    executeSchedule: async (calls, turn, turnStopped = false) => runGroups(calls, plan(calls), turn, deps, turnStopped),
    trackExternalBackgroundTask: (task) => backgroundTasks.track(task, true),
    flagsOf: (call) => {
      const entry = deps.registry.get(call.name)
      return entry === undefined ? undefined : flagsFor(entry, call.input)
    },
    canDispatchEarly: (call, turn) => canDispatchEarly(deps, call, turn),
  }
}

async function canDispatchEarly(deps: ExecutorDeps, call: ToolCall, turn: TurnContext): Promise<boolean> {
  const entry = deps.registry.get(call.name)
  if (entry === undefined) return false
  const flags = flagsFor(entry, call.input)
  if (!isEarlyDispatchEligible(flags, false)) return false
  const verdict = await deps.permissions.evaluate({
    sessionId: turn.sessionId,
    callId: call.id,
    toolName: call.name,
    input: call.input,
    flags,
    entry,
    mode: turn.permissionMode ?? 'default',
    workspace: turn.workspace,
  })
  return isEarlyDispatchEligible(flags, verdict.behavior !== 'allow')
}
