/**
 * @module Asking for approval (R15-R18): the tool may narrow or preview, the request is
 * registered before it is visible, then the client's answer races the PermissionRequest
 * hooks, the optional time limit and the turn's abort. The first decision wins.
 */
import { randomUUID } from 'node:crypto'
import type { RiskLevel } from '../contracts/events.js'
import type { PermissionAnswer, PermissionBroker, PermissionRequest, PermissionTicket, PermissionVerdict, TurnContext } from '../contracts/ports.js'
import type { ApprovalPreparation, ToolEntry } from '../contracts/tool-entry.js'
import { DENIED_WITHOUT_CLIENT } from '../contracts/permission-outcomes.js'
import { inputHashOf } from '../contracts/input-hash.js'
import type { ExecutorDeps } from './deps.js'
import { emitEvent } from './events.js'
import { hasHook, hookRuleId, runPermissionRequestHooks } from './hook-flow.js'
import { LOG_EVENTS } from './telemetry.js'

/** What one call brings to the permission decision. */
export interface CallPermissionContext {
  readonly deps: ExecutorDeps
  readonly turn: TurnContext
  readonly entry: ToolEntry
  readonly toolName: string
  readonly callId: string
  readonly input: unknown
  readonly signal: AbortSignal
}

export interface ApprovalInput extends CallPermissionContext {
  readonly verdict: PermissionVerdict
}

export type ApprovalOutcome = { readonly kind: 'narrowed' } | { readonly kind: 'answered'; readonly permissionId: string; readonly answer: PermissionAnswer }

/** R15: prepareApproval may only narrow to allow or attach a preview; a throw still asks. */
async function prepare(args: ApprovalInput): Promise<ApprovalPreparation | undefined> {
  if (args.entry.prepareApproval === undefined) return undefined
  try {
    return await args.entry.prepareApproval(args.input, { sessionId: args.turn.sessionId, callId: args.callId, workspace: args.turn.workspace, services: args.deps.services })
  } catch (error) {
    args.deps.logger.warn({ callId: args.callId, toolName: args.toolName, err: error }, LOG_EVENTS.approvalPreviewFailed)
    return undefined
  }
}

function buildRequest(args: ApprovalInput, preparation: ApprovalPreparation | undefined): PermissionRequest {
  const riskLevel: RiskLevel = args.verdict.riskLevel ?? 'medium'
  return {
    permissionId: `perm_${randomUUID()}`,
    sessionId: args.turn.sessionId,
    callId: args.callId,
    toolName: args.toolName,
    input: args.input,
    preview: preparation?.preview,
    riskLevel,
    reason: args.verdict.reason ?? `Tool ${args.toolName} requires approval`,
    suggestedRule: args.verdict.suggestedRule,
    suggestedRules: args.verdict.suggestedRules,
  }
}

export async function requestApproval(args: ApprovalInput): Promise<ApprovalOutcome> {
  const preparation = await prepare(args)
  if (preparation?.behavior === 'allow') return { kind: 'narrowed' }
  const broker: PermissionBroker = args.turn.broker ?? args.deps.broker
  // R16: the ticket exists before anyone can see the request, so no answer is dropped.
  const ticket = await broker.open(buildRequest(args, preparation))
  // The broker may keep an id it already knows (a request re-opened after a restart).
  const request = ticket.request
  await emitEvent(args.turn.emit, {
    type: 'PermissionRequested',
    sessionId: request.sessionId,
    permissionId: request.permissionId,
    callId: request.callId,
    toolName: request.toolName,
    input: request.input,
    inputHash: inputHashOf(request.input),
    preview: request.preview,
    riskLevel: request.riskLevel,
    reason: request.reason,
    suggestedRule: request.suggestedRule,
    suggestedRules: request.suggestedRules?.map((choice) => ({ kind: choice.kind, rules: [...choice.rules] })),
  })
  const racers = startRacers(args, ticket, broker.interactive)
  const answer = await ticket.answer
  racers.stop()
  await emitEvent(args.turn.emit, {
    type: 'PermissionResolved',
    sessionId: request.sessionId,
    permissionId: request.permissionId,
    callId: request.callId,
    toolName: request.toolName,
    decision: answer.decision,
    decidedBy: answer.decidedBy,
    reason: answer.message,
    ruleId: answer.decidedBy === 'hook' ? racers.decidingHook() : undefined,
    scope: answer.scope,
    rules: answer.rules === undefined ? undefined : [...answer.rules],
    deciderId: answer.decider?.id,
    deciderName: answer.decider?.name,
  })
  args.deps.logger.info({ callId: args.callId, decision: answer.decision, decidedBy: answer.decidedBy }, LOG_EVENTS.permissionResolved)
  return { kind: 'answered', permissionId: request.permissionId, answer }
}

interface Racers {
  stop(): void
  /** The PermissionRequest hook whose decision won, as a rule id. */
  decidingHook(): string | undefined
}

/** Starts everything that may answer besides the client; returns the cleanup. */
function startRacers(args: ApprovalInput, ticket: PermissionTicket, interactive: boolean): Racers {
  const hookController = new AbortController()
  const onAbort = (): void => {
    ticket.settle({ decision: 'deny', decidedBy: 'abort', message: 'Tool execution cancelled' })
  }
  if (args.signal.aborted) onAbort()
  else args.signal.addEventListener('abort', onAbort, { once: true })
  const timer = startPermissionTimer(args.turn.permissionTimeoutMs, ticket)
  let winner: string | undefined
  raceHooks(args, ticket, hookController.signal, interactive, (hook) => {
    winner = hookRuleId('PermissionRequest', hook)
  })
  return {
    stop: function stopRacers() {
      args.signal.removeEventListener('abort', onAbort)
      if (timer !== undefined) clearTimeout(timer)
      hookController.abort()
    },
    decidingHook: () => winner,
  }
}

/** R18: no limit unless configured. */
function startPermissionTimer(timeoutMs: number | undefined, ticket: PermissionTicket): NodeJS.Timeout | undefined {
  if (timeoutMs === undefined || !(timeoutMs > 0)) return undefined
  return setTimeout(() => {
    ticket.settle({ decision: 'deny', decidedBy: 'timeout', message: `Permission request timed out after ${timeoutMs}ms` })
  }, timeoutMs)
}

/** R16 and R17: hooks race the client; without a client, a silent hook chain means deny. */
function raceHooks(args: ApprovalInput, ticket: PermissionTicket, signal: AbortSignal, interactive: boolean, onWin: (hook: string | undefined) => void): void {
  if (!hasHook(args.deps.hooks, 'PermissionRequest', args.toolName)) {
    if (!interactive) ticket.settle(DENIED_WITHOUT_CLIENT)
    return
  }
  const payload = {
    hookEventName: 'PermissionRequest' as const,
    sessionId: args.turn.sessionId,
    callId: args.callId,
    toolName: args.toolName,
    toolInput: args.input,
    workspace: args.turn.workspace,
  }
  void runPermissionRequestHooks({ hooks: args.deps.hooks, payload, signal, emit: args.turn.emit }).then((outcome) => {
    if (outcome.decision !== undefined) {
      // Recorded before settling: the waiting side reads it as soon as the answer resolves.
      onWin(outcome.hook)
      const won = ticket.settle({ decision: outcome.decision, decidedBy: 'hook', message: outcome.reason })
      if (!won) args.deps.logger.debug({ callId: args.callId }, LOG_EVENTS.hookRaceForfeited)
    }
    if (!interactive) ticket.settle(DENIED_WITHOUT_CLIENT)
  })
}
