/**
 * @module The permission decision of one call (R14): the service's verdict with the project
 * rules, then the PreToolUse decision laid over it, then the memory-file rule (A9); an `ask`
 * goes to the approval gate.
 */
import path from 'node:path'
import type { ToolFlags } from '../contracts/flags.js'
import type { PermissionAnswer, PermissionVerdict, WriteGrant } from '../contracts/ports.js'
import type { AccessTarget } from '../contracts/tool-entry.js'
import { accessTargetOf } from '../contracts/access-target.js'
import { STEERING_RULE_ID } from '../contracts/permission-outcomes.js'
import { requestApproval, type CallPermissionContext } from './approval-gate.js'
import { readThroughOutage } from './database-wait.js'
import { emitEvent } from './events.js'
import type { PreToolUseOutcome } from './hook-flow.js'
import { LOG_EVENTS } from './telemetry.js'

export const MEMORY_FILE_RULE_ID = 'memory.file.markdown'

export interface PermissionFlowInput extends CallPermissionContext {
  readonly flags: ToolFlags
  readonly pre: PreToolUseOutcome
}

export type PermissionFlowResult =
  | { readonly kind: 'allow'; readonly asked: boolean; readonly writes: WriteGrant; readonly leadsTo?: string | undefined }
  | { readonly kind: 'deny'; readonly message: string | undefined; readonly asked: boolean; readonly answer?: PermissionAnswer }
  | { readonly kind: 'aborted' }

/** The read-only fast path: allowed because the call was judged read-only, by nobody in particular. */
const READ_ONLY_RULE_ID = 'mode.readOnly'
const ALLOWED_READ_ONLY: PermissionFlowResult = Object.freeze({ kind: 'allow', asked: false, writes: 'none' })

/**
 * What an allowed call may write (WriteGrant): nothing when only its read-only look let it
 * run; the steering files only when a person approved the very ask they raised.
 */
export function writeGrantOf(verdict: PermissionVerdict, approvedByPerson: boolean): WriteGrant {
  if (approvedByPerson) return verdict.ruleId === STEERING_RULE_ID ? 'steering' : 'workspace'
  return verdict.ruleId === READ_ONLY_RULE_ID ? 'none' : 'workspace'
}

export async function decidePermission(args: PermissionFlowInput): Promise<PermissionFlowResult> {
  const verdict = await evaluateVerdict(args)
  if (verdict.behavior === 'allow') return { kind: 'allow', asked: false, writes: writeGrantOf(verdict, false), leadsTo: verdict.leadsTo }
  if (verdict.behavior === 'deny') return deny(args, verdict)
  const outcome = await requestApproval({ ...args, verdict })
  // The tool itself narrowed the ask to an allow: no person saw it.
  if (outcome.kind === 'narrowed') return ALLOWED_READ_ONLY
  const answer = outcome.answer
  if (answer.decidedBy === 'abort') return { kind: 'aborted' }
  if (answer.decision === 'allow') return { kind: 'allow', asked: true, writes: writeGrantOf(verdict, true), leadsTo: verdict.leadsTo }
  return { kind: 'deny', message: answer.message, asked: true, answer }
}

async function evaluateVerdict(args: PermissionFlowInput): Promise<PermissionVerdict> {
  const query = {
    sessionId: args.turn.sessionId,
    callId: args.callId,
    toolName: args.toolName,
    input: args.input,
    flags: args.flags,
    entry: args.entry,
    mode: args.turn.permissionMode ?? 'default',
    workspace: args.turn.workspace,
  }
  const serviceVerdict = await readThroughOutage(() => args.deps.permissions.evaluate(query), args.signal)
  const alwaysAsk = args.flags.alwaysAsk
  const lifted = alwaysAsk && serviceVerdict.behavior === 'allow' ? askBecauseAlwaysAsk(serviceVerdict, args.toolName) : serviceVerdict
  const overlaid = overlayPreToolUse(lifted, args.pre, alwaysAsk)
  return applyMemoryFileRule(overlaid, args)
}

function askBecauseAlwaysAsk(verdict: PermissionVerdict, toolName: string): PermissionVerdict {
  return { ...verdict, behavior: 'ask', reason: `Tool ${toolName} requires approval`, explicitAsk: true }
}

/** R14: a hook's allow waives an ordinary ask, never alwaysAsk nor a deny; its ask lifts an allow. */
export function overlayPreToolUse(verdict: PermissionVerdict, pre: PreToolUseOutcome, alwaysAsk: boolean): PermissionVerdict {
  if (pre.decision === 'allow' && verdict.behavior === 'ask' && !alwaysAsk) {
    return { behavior: 'allow', reason: pre.reason, ruleId: 'hook.PreToolUse' }
  }
  if (pre.decision === 'ask' && verdict.behavior === 'allow') {
    return { ...verdict, behavior: 'ask', reason: pre.reason, ruleId: 'hook.PreToolUse', explicitAsk: true }
  }
  // The person asked sees why the hook wants them, not only why the rules would have asked.
  if (pre.decision === 'ask' && verdict.behavior === 'ask') return { ...verdict, reason: pre.reason ?? verdict.reason, ruleId: 'hook.PreToolUse' }
  return verdict
}

/** A9: Markdown writes in the memory directory run without asking, with the listed exceptions. */
export function applyMemoryFileRule(verdict: PermissionVerdict, args: PermissionFlowInput): PermissionVerdict {
  if (!isMemoryFileWrite(accessTargetOf(args.entry, args.input), args.deps.memoryDir, args.turn.workspace)) return verdict
  if (verdict.behavior === 'deny' && verdict.modeDeny !== true) return verdict
  if (args.flags.alwaysAsk || verdict.explicitAsk === true || args.pre.decision === 'ask') {
    return verdict.behavior === 'deny' ? { ...verdict, behavior: 'ask' } : verdict
  }
  return { behavior: 'allow', ruleId: MEMORY_FILE_RULE_ID, reason: 'Memory file write' }
}

/** Relative paths are the workspace's, as the file tools resolve them. */
export function isMemoryFileWrite(access: AccessTarget | undefined, memoryDir: string | undefined, workspace: string | undefined): boolean {
  if (memoryDir === undefined || access?.kind !== 'file' || access.access !== 'write') return false
  const filePath = access.path
  if (!filePath.toLowerCase().endsWith('.md')) return false
  const target = path.resolve(workspace ?? process.cwd(), filePath)
  const relative = path.relative(path.resolve(memoryDir), target)
  return relative.length > 0 && !relative.startsWith('..') && !path.isAbsolute(relative)
}

async function deny(args: PermissionFlowInput, verdict: PermissionVerdict): Promise<PermissionFlowResult> {
  args.deps.logger.info({ callId: args.callId, toolName: args.toolName, ruleId: verdict.ruleId }, LOG_EVENTS.permissionDenied)
  await emitEvent(args.turn.emit, {
    type: 'PermissionResolved',
    sessionId: args.turn.sessionId,
    callId: args.callId,
    toolName: args.toolName,
    decision: 'deny',
    decidedBy: 'rule',
    reason: verdict.reason,
    ruleId: verdict.ruleId,
  })
  return { kind: 'deny', message: verdict.reason, asked: false }
}
