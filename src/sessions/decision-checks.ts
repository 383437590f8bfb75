/**
 * @module What a person's decision on a permission request must pass before it settles the
 * call: the request still open (a decision is valid once; a closed request is told apart from
 * one decided), the input it names the one the request shows, and four eyes where the session
 * asks for them.
 */
import type { Principal } from '../contracts/access.js'
import { ToolexecError } from '../contracts/errors.js'
import { inputHashOf } from '../contracts/input-hash.js'
import type { PermissionAnswer } from '../contracts/ports.js'
import type { PermissionRow, Store } from '../contracts/store.js'
import { offeredChoice, ruleChoicesOf } from '../permissions/rule-choices.js'

/** How a request closed without a person: by its decidedBy. */
const CLOSED_BY: Readonly<Record<string, string>> = {
  abort: 'its call was aborted',
  timeout: "nobody answered within the session's permissionTimeoutMs",
  broker: 'the server closed it',
}

/** 409: closed without a person (aborted, timed out, superseded), or decided already. */
export function alreadyDecided(id: string, answer: PermissionAnswer): ToolexecError {
  const closed = CLOSED_BY[answer.decidedBy]
  if (closed !== undefined) {
    // The server's own message says why it closed: superseded, or no client to ask (R17).
    const reason = answer.decidedBy === 'broker' && answer.message !== undefined ? `${closed}: ${answer.message}` : closed
    return new ToolexecError('API_ERR_PERMISSION_CLOSED', [id, reason], { context: { decision: answer.decision, decidedBy: answer.decidedBy } })
  }
  const context = { decision: answer.decision, decidedBy: answer.decidedBy, ...(answer.decider === undefined ? {} : { deciderId: answer.decider.id, deciderName: answer.decider.name }) }
  return new ToolexecError('API_ERR_PERMISSION_DECIDED', [id, answer.decision, answer.decider?.name ?? answer.decidedBy], { context })
}

export function sessionDeleted(id: string): ToolexecError {
  return new ToolexecError('API_ERR_PERMISSION_CLOSED', [id, 'its session was deleted'])
}

/**
 * 400 unless a decision's `rules` are those of a choice the request offers (rule-choices.ts,
 * from its input, as the request was shown), given with scope project; the rules to add.
 */
export function chosenRules(row: PermissionRow, body: { readonly scope?: string | undefined; readonly rules?: readonly string[] | undefined }): readonly string[] | undefined {
  if (body.rules === undefined) return undefined
  const offered = body.scope === 'project' && row.suggestedRule !== null ? offeredChoice(ruleChoicesOf(row.toolName, row.input, row.suggestedRule), body.rules) : undefined
  if (offered === undefined) throw new ToolexecError('API_ERR_RULE_NOT_OFFERED', [row.id, JSON.stringify(body.rules)])
  return offered.rules
}

/** 409 when the decider saw another input than the request holds. */
export function assertSameInput(row: PermissionRow, inputHash: string | undefined): void {
  if (inputHash === undefined) return
  const actual = inputHashOf(row.input)
  if (actual !== inputHash) throw new ToolexecError('API_ERR_PERMISSION_INPUT_CHANGED', [row.id, actual, inputHash], { context: { inputHash: actual } })
}

/**
 * 403 when the call is under four eyes (its session asks for them, or a fourEyes rule of the
 * server matches it) and `principal` (or the key whose link it is) scheduled it. Without a
 * token every request is the one `local` principal: under four eyes nobody can then decide,
 * and the call waits for its timeout or an abort (it fails closed).
 */
export async function assertFourEyes(store: Pick<Store, 'sessions' | 'schedules'>, row: PermissionRow, principal: Principal, ruleOf: FourEyesRuleOf = NO_RULES): Promise<void> {
  const session = await store.sessions.get(row.sessionId)
  if (session === undefined) return
  const rule = session.fourEyes === true ? undefined : ruleOf({ toolName: row.toolName, input: row.input, workspace: session.workspace })
  if (session.fourEyes !== true && rule === undefined) return
  const scheduledBy = await store.schedules.scheduledBy(row.sessionId, row.callId)
  // A link decides as the key that minted it: a key cannot pass four eyes through its own link.
  if (scheduledBy === undefined || (scheduledBy !== principal.id && scheduledBy !== principal.linkOf)) return
  const what = rule === undefined ? `Session ${row.sessionId}` : `The call (rule ${rule})`
  throw new ToolexecError('API_ERR_FOUR_EYES', [what, `${principal.id} (${principal.name})`, row.callId], { context: { scheduledBy: principal.id, ...(rule === undefined ? {} : { rule }) } })
}

/** The fourEyes rule of the server matching a call, or undefined (src/permissions/four-eyes-rules.ts). */
export type FourEyesRuleOf = (call: { readonly toolName: string; readonly input: unknown; readonly workspace: string }) => string | undefined
const NO_RULES: FourEyesRuleOf = () => undefined
