/**
 * @module Bash {command, timeout?, description?, run_in_background?} (SPEC A1: F/F/F/system,
 * serial, but a read-only command (A6) is readOnly with scope `none`, R40; 30000 bytes,
 * artifact, tail; 120000 ms by default, at most 600000, per-call override, 6000 ms grace).
 * Runs `bash -c` in the workspace as its own process group and enforces its own timeout, so
 * the executor's watchdog fires only 6 s later (R21). The command writes its output straight
 * into a file that becomes the artifact when the output is large; memory stays bounded.
 */
import { stat } from 'node:fs/promises'
import { Type, type Static } from '@sinclair/typebox'
import type { Display } from '../../contracts/display.js'
import type { ToolFlags } from '../../contracts/flags.js'
import type { ToolCallContext } from '../../contracts/ports.js'
import type { Serialization } from '../../contracts/result.js'
import { defineTool, type ToolBusinessFailure, type ToolEntry } from '../../contracts/tool-entry.js'
import { buildBashOutputDisplay } from '../../output/bash-output-display.js'
import { classifyBashCommand } from '../../permissions/bash-classifier.js'
import { neutralGitEnvironment } from '../../permissions/git-neutral-config.js'
import { isStrictlyReadOnly } from '../../permissions/strict-read-only.js'
import { defaultCommandEnvironment } from '../../processes/command-environment.js'
import { commandOutput, isBackgroundOutput, type BashCommandOutput, type BashOutput } from './bash-output.js'
import type { CapturedOutput } from './captured-output.js'
import { CommandOutput } from './command-output.js'
import { startCommand, type CommandExit } from './command-runner.js'
import { commandPreview } from './command-preview.js'
import { confinementOf } from './confinement.js'
import type { Confinement } from './sandbox.js'
import { BASH_RESULT_BUDGET_BYTES, formatBackgroundText, formatCommandText, formatPersistedBashContent, tailPreview } from './model-text.js'
import { probeSandbox, type SandboxStatus } from './sandbox-probe.js'

/** How much of a cut output's end the failure shows. */
const OUTPUT_LOST_TAIL_BYTES = 2 * 1024

export const BASH_TOOL_NAME = 'Bash'
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000
export const MAX_COMMAND_TIMEOUT_MS = 600_000

const BashInputSchema = Type.Object(
  {
    command: Type.String({ minLength: 1, description: 'The command, run with `bash -c` in the workspace' }),
    timeout: Type.Optional(Type.Number({ description: `Timeout in milliseconds (default ${DEFAULT_COMMAND_TIMEOUT_MS}, at most ${MAX_COMMAND_TIMEOUT_MS})` })),
    description: Type.Optional(Type.String({ description: 'What the command does, in 5-10 words' })),
    run_in_background: Type.Optional(Type.Boolean({ description: 'Start it and return a task id at once; read it with TaskOutput, end it with TaskStop' })),
  },
  { additionalProperties: false },
)
export type BashInput = Static<typeof BashInputSchema>

const DESCRIPTION =
  'Runs a bash command in the workspace and returns its output (stdout and stderr interleaved) and exit code. ' +
  `It is killed with everything it started after \`timeout\` ms (default ${DEFAULT_COMMAND_TIMEOUT_MS}, at most ${MAX_COMMAND_TIMEOUT_MS}). ` +
  'Large output is saved to a file; you get its beginning, its end and the path. ' +
  'Use run_in_background for long-running commands (servers, watchers) and read them with TaskOutput.'

const READ_ONLY_FLAGS: Partial<ToolFlags> = Object.freeze({ readOnly: true, sideEffectScope: 'none', concurrentSafe: true })
const NO_CHANGE: Partial<ToolFlags> = Object.freeze({})

/** R20's arithmetic for the command's own limit: the override, capped, at least 1 ms. */
export function commandTimeoutMs(requested: number | undefined): number {
  const wanted = requested !== undefined && Number.isFinite(requested) ? requested : DEFAULT_COMMAND_TIMEOUT_MS
  return Math.max(1, Math.trunc(Math.min(wanted, MAX_COMMAND_TIMEOUT_MS)))
}

/**
 * R40, A6: flags from the command; called on raw input too (planning), so it checks its shape.
 * Unconfined, only the strict subset counts as read-only: the fast path needs the sandbox.
 */
function bashFlagsResolver(confined: boolean): (input: unknown) => Partial<ToolFlags> {
  const isReadOnly = confined ? (command: string) => classifyBashCommand(command).readOnly : isStrictlyReadOnly
  return function resolveBashFlags(input) {
    if (typeof input !== 'object' || input === null) return NO_CHANGE
    const { command, run_in_background: background } = input as { command?: unknown; run_in_background?: unknown }
    if (typeof command !== 'string' || background === true) return NO_CHANGE
    return isReadOnly(command) ? READ_ONLY_FLAGS : NO_CHANGE
  }
}

async function workspaceOf(ctx: ToolCallContext): Promise<string | ToolBusinessFailure> {
  const workspace = ctx.workspace
  if (workspace === undefined) return { result: false, errorCode: 'TOOL_ERR_NO_WORKSPACE', message: 'Bash needs a workspace, and this session has none.' }
  const info = await stat(workspace).catch(() => undefined)
  if (info?.isDirectory() !== true) return { result: false, errorCode: 'TOOL_ERR_NO_WORKSPACE', message: `The workspace ${workspace} is not a directory.` }
  return workspace
}

/**
 * The allow-listed environment (command-environment.ts); for a command the classifier calls
 * read-only, with git's program-starting config neutralised (git-neutral-config.ts). That
 * holds however the call was allowed: the overrides are harmless, and a read-only command
 * has nothing to gain from a pager, a hook or fsmonitor.
 */
function commandEnv(command: string, ctx: ToolCallContext): Record<string, string> {
  const env = (ctx.services.commandEnvironment ?? defaultCommandEnvironment()).build()
  return classifyBashCommand(command).readOnly ? neutralGitEnvironment(env) : env
}

/** A command whose output the disk may have cut did not succeed, whatever its exit code: the model is told. */
function outputLostFailure(exit: CommandExit, captured: CapturedOutput, reason: string): ToolBusinessFailure {
  const kept = tailPreview(captured.omitted?.tail ?? captured.text, OUTPUT_LOST_TAIL_BYTES)
  return {
    result: false,
    errorCode: 'TOOL_ERR_OUTPUT_LOST',
    message:
      `The command ran (exit code ${exit.exitCode ?? 'unknown'}) but its output could not be stored whole: ${reason}. ` +
      `It may be cut anywhere and no file of it was kept; check the command's effects, and free space before running it again.` +
      (kept === '' ? '' : `\nThe last of what was stored:\n${kept}`),
  }
}

async function runInForeground(input: BashInput, ctx: ToolCallContext, cwd: string, confinement: Confinement | undefined): Promise<BashCommandOutput | ToolBusinessFailure> {
  const timeoutMs = commandTimeoutMs(input.timeout)
  const confined = confinement !== undefined
  const output = await CommandOutput.create({
    artifacts: ctx.artifacts,
    artifact: { sessionId: ctx.sessionId, callId: ctx.callId, mediaType: 'text/plain', retention: 'session' },
  })
  let exit: CommandExit
  try {
    const running = startCommand({
      command: input.command,
      cwd,
      output,
      env: commandEnv(input.command, ctx),
      confinement,
      timeoutMs,
      signal: ctx.signal,
      onProgress: (progress) => ctx.progress({ ...progress, confined }),
    })
    exit = await running.exited
  } catch (error) {
    await output.discard()
    throw error
  }
  if (exit.stopped === 'abort') {
    // The executor has already answered for this call: nothing will read the output.
    const totalBytes = output.bytes
    await output.discard()
    return commandOutput(input.command, exit, { text: '', totalBytes }, timeoutMs, confined)
  }
  const captured = await output.finish({ stillWriting: exit.leftRunning })
  if (captured.outputLost !== undefined) return outputLostFailure(exit, captured, captured.outputLost)
  return commandOutput(input.command, exit, captured, timeoutMs, confined)
}

async function startInBackground(input: BashInput, ctx: ToolCallContext, cwd: string, confinement: Confinement | undefined): Promise<BashOutput | ToolBusinessFailure> {
  const { shellTasks, backgroundTasks } = ctx.services
  if (shellTasks === undefined || backgroundTasks === undefined) {
    return { result: false, errorCode: 'TOOL_ERR_NO_BACKGROUND_TASKS', message: 'Background commands are not available here: run the command without run_in_background.' }
  }
  const task = await shellTasks.start({
    sessionId: ctx.sessionId,
    callId: ctx.callId,
    command: input.command,
    description: input.description,
    cwd,
    env: commandEnv(input.command, ctx),
    artifacts: ctx.artifacts,
    confinement,
  })
  backgroundTasks.track(task, false)
  return { command: input.command, backgroundTaskId: task.id, confined: task.confined }
}

/** R38: bash_output only when truncated or persisted; a streamed run counts as persisted. */
function bashDisplay(input: BashInput, output: BashOutput, serialization: Serialization): Display | undefined {
  if (isBackgroundOutput(output)) return { kind: 'background_task', taskId: output.backgroundTaskId, command: output.command, status: 'running', confined: output.confined }
  const streamed = output.omitted !== undefined
  const effective: Serialization = streamed ? { ...serialization, truncated: true, persistedPath: output.persistedPath ?? serialization.persistedPath } : serialization
  const display = buildBashOutputDisplay({ command: input.command, output: output.output, exitCode: output.exitCode, serialization: effective, confined: output.confined })
  if (display === undefined || !streamed) return display
  return { ...display, truncated: true, originalBytes: output.totalBytes }
}

export interface BashToolOptions {
  /** Whether commands can be confined here (sandbox-probe.ts); probed in `auto` mode when absent. */
  readonly sandbox?: SandboxStatus | undefined
}

/** @example registry.register(createBashTool({ sandbox: probeSandbox('auto') })) */
export function createBashTool(options: BashToolOptions = {}): ToolEntry<BashInput, BashOutput> {
  const sandbox = options.sandbox ?? probeSandbox('auto')
  return defineTool({
    name: BASH_TOOL_NAME,
    accessTarget: (input) => ({ kind: 'command', command: input.command }),
    interruptedIsError: true,
    description: DESCRIPTION,
    inputSchema: BashInputSchema,
    readOnly: false,
    destructive: false,
    concurrentSafe: false,
    permission: { sideEffectScope: 'system' },
    timeout: { kind: 'deadline', defaultMs: DEFAULT_COMMAND_TIMEOUT_MS, maxMs: MAX_COMMAND_TIMEOUT_MS, allowCallOverride: true, cleanupGraceMs: 6_000 },
    resultBudget: { maxModelBytes: BASH_RESULT_BUDGET_BYTES, maxInlineBytes: BASH_RESULT_BUDGET_BYTES, strategy: 'artifact', previewDirection: 'tail' },
    retention: 'session',
    resolveFlags: bashFlagsResolver(sandbox.confined),
    prepareApproval: async (_input, ctx) => ({ preview: { command: await commandPreview(sandbox, ctx) } }),
    formatModelContent: (output: BashOutput) => (isBackgroundOutput(output) ? formatBackgroundText(output.backgroundTaskId) : formatCommandText(output)),
    formatPersistedModelContent: formatPersistedBashContent,
    persistedArtifact: (output: BashOutput) => (isBackgroundOutput(output) ? undefined : output.artifact),
    buildDisplay: ({ input, output, serialization }) => bashDisplay(input, output, serialization),
    handler: async function bash(input, ctx): Promise<BashOutput | ToolBusinessFailure> {
      const cwd = await workspaceOf(ctx)
      if (typeof cwd !== 'string') return cwd
      const confinement = await confinementOf(sandbox, ctx, cwd)
      return input.run_in_background === true ? startInBackground(input, ctx, cwd, confinement) : runInForeground(input, ctx, cwd, confinement)
    },
  })
}
