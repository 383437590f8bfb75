/**
 * Fixtures for the permission and hook tests: tools that normalize and record their input,
 * function hooks, a sink that answers approvals the moment they become visible, temp dirs.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { Type } from '@sinclair/typebox'
import type { vi } from 'vitest'
import type { EventOf, ExecutorEvent, ExecutorEventType } from '../../src/contracts/events.js'
import type { HookEventName, HookOutput, HookPayload, PermissionAnswer } from '../../src/contracts/ports.js'
import type { ApprovalPreparation, InputContext, ToolEntry } from '../../src/contracts/tool-entry.js'
import type { SideEffectScope } from '../../src/contracts/flags.js'
import type { FunctionHook } from '../../src/hooks/function-hook-runner.js'
import type { AnswerOutcome, InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { createExitPlanModeTool } from '../../src/tools/exit-plan-mode/index.js'
import { tempDir } from './temp-dirs.js'

export interface WriteInput {
  readonly file_path: string
  readonly content?: string
}

export interface WriteToolOptions {
  readonly name?: string
  readonly alwaysAsk?: boolean
  readonly prepareApproval?: (input: WriteInput, ctx: InputContext) => ApprovalPreparation | Promise<ApprovalPreparation>
}

/** A tool with the inputs its handler received, in order. */
export interface Recorded<I> {
  readonly entry: ToolEntry
  readonly inputs: I[]
}

/**
 * A real Write: resolveInput trims the path and makes it absolute in the workspace, the
 * handler writes the file. So a normalized input is visibly different from the raw one.
 */
export function writeTool(options: WriteToolOptions = {}): Recorded<WriteInput> {
  const inputs: WriteInput[] = []
  const entry: ToolEntry<WriteInput, string> = {
    name: options.name ?? 'Write',
    description: 'Writes content to a file',
    inputSchema: Type.Object({ file_path: Type.String(), content: Type.Optional(Type.String()) }, { additionalProperties: false }),
    readOnly: false,
    destructive: false,
    concurrentSafe: false,
    permission: { sideEffectScope: 'workspace', alwaysAsk: options.alwaysAsk === true },
    resolveInput: (input, ctx) => ({ ...input, file_path: path.resolve(ctx.workspace ?? process.cwd(), input.file_path.trim()) }),
    accessTarget: (input) => ({ kind: 'file', access: 'write', path: input.file_path }),
    ...(options.prepareApproval === undefined ? null : { prepareApproval: options.prepareApproval }),
    handler: async (input) => {
      inputs.push(input)
      await fs.mkdir(path.dirname(input.file_path), { recursive: true })
      await fs.writeFile(input.file_path, input.content ?? '')
      return `wrote ${input.file_path}`
    },
  }
  return { entry, inputs }
}

export interface NoteInput {
  readonly note?: string
}

/** A tool of any name and scope that records its input and answers `done <name>`. */
export function noteTool(name: string, scope: SideEffectScope, extra: Partial<ToolEntry> = {}): Recorded<NoteInput> {
  const inputs: NoteInput[] = []
  const entry: ToolEntry = {
    name,
    description: `Records its input (${scope})`,
    inputSchema: Type.Object({ note: Type.Optional(Type.String()) }),
    readOnly: scope === 'none',
    destructive: false,
    concurrentSafe: scope === 'none',
    permission: { sideEffectScope: scope },
    handler: (input) => {
      inputs.push(input as NoteInput)
      return Promise.resolve(`done ${name}`)
    },
    ...extra,
  }
  return { entry, inputs }
}

/** A5's tool: scope session, serial. */
export function exitPlanModeTool(): Recorded<NoteInput> {
  // Like the real ExitPlanMode: session scope, but it always asks (the plan is the preview).
  const real = createExitPlanModeTool()
  return noteTool('ExitPlanMode', 'session', { concurrentSafe: false, permission: { sideEffectScope: 'session', alwaysAsk: true }, askedDenial: real.askedDenial })
}

export function hook(
  event: HookEventName,
  run: (payload: HookPayload, signal: AbortSignal) => HookOutput | undefined | Promise<HookOutput | undefined>,
  matcher?: string,
  name = `${event}-hook`,
): FunctionHook {
  return { event, matcher, name, run }
}

/** Fake timers that also drive performance.now(), which the deadline and the clock read. */
export const FAKE_TIMERS: NonNullable<Parameters<typeof vi.useFakeTimers>[0]> = {
  toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export function ofType<T extends ExecutorEventType>(events: readonly ExecutorEvent[], type: T): EventOf<T>[] {
  return events.filter((event): event is EventOf<T> => event.type === type)
}

export interface AnsweringSink {
  readonly events: ExecutorEvent[]
  readonly outcomes: AnswerOutcome[]
  readonly emit: (event: ExecutorEvent) => void
}

/**
 * Collects events and answers each PermissionRequested synchronously from inside the sink,
 * the earliest moment a client could: the ticket must already exist (R16).
 * `answer` undefined leaves the request pending.
 */
export function answeringSink(broker: InMemoryPermissionBroker, answer: PermissionAnswer | undefined | ((event: EventOf<'PermissionRequested'>) => PermissionAnswer | undefined)): AnsweringSink {
  const events: ExecutorEvent[] = []
  const outcomes: AnswerOutcome[] = []
  return {
    events,
    outcomes,
    emit(event) {
      events.push(event)
      if (event.type !== 'PermissionRequested') return
      const chosen = typeof answer === 'function' ? answer(event) : answer
      if (chosen !== undefined) outcomes.push(broker.answer(event.permissionId, chosen))
    },
  }
}

export const CLIENT_ALLOW: PermissionAnswer = Object.freeze({ decision: 'allow', decidedBy: 'client' })
export const CLIENT_DENY: PermissionAnswer = Object.freeze({ decision: 'deny', decidedBy: 'client' })

export { tempDir }

/** Lets pending promise callbacks run (real timers). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** `<root>/ws` holding `files` (relative name -> content), with `root` resolved of symlinks. */
export async function workspaceWith(prefix: string, files: Readonly<Record<string, string | Buffer>>): Promise<{ root: string; workspace: string }> {
  const root = await fs.realpath(await tempDir(prefix))
  const workspace = path.join(root, 'ws')
  await fs.mkdir(workspace)
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(workspace, name)), { recursive: true })
    await fs.writeFile(path.join(workspace, name), content)
  }
  return { root, workspace }
}
