/**
 * @module One pending approval: the change first (approval-change.tsx: a diff, a command with
 * its sandbox, an input tree; the raw input collapsed), the risk, the reason and the suggested
 * rule; allow once, for the session or for the project (after a confirmation naming the rules
 * it adds, chosen among those the server offers), or deny with a message; by mouse or by key
 * (approval-keys.ts), the card taking focus when it becomes the one looked at. The decisions
 * stay in a bar at the bottom of the view while the card is in it, however long the change.
 * The answer names the input's hash, so that it
 * holds only for the input shown. An answer that lost the race (a hook or another tab answered
 * first) or came after the request closed is an outcome to show, not an error. A token
 * without the scope approvals:decide sees the request and no control to answer it.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { PermissionAnswerBody, PermissionRequestRecord } from '../../src/contracts/api.js'
import type { DecidedBy, RuleChoice } from '../../src/contracts/events.js'
import { request } from './api.js'
import { ChangeView } from './approval-change.js'
import { isTyping, useApprovalKeys } from './approval-keys.js'
import { useCan } from './caller.js'
import { refreshPending } from './pending.js'
import { ProjectConfirm } from './project-confirm.js'
import type { PermissionRequest } from './timeline.js'

/** What the card shows of a request: the event's fields, which a listed record gives too (approvalOf). */
export type ApprovalRequest = Pick<
  PermissionRequest,
  'permissionId' | 'sessionId' | 'callId' | 'toolName' | 'input' | 'inputHash' | 'preview' | 'riskLevel' | 'reason' | 'suggestedRule' | 'suggestedRules'
>

export function approvalOf(record: PermissionRequestRecord): ApprovalRequest {
  const { id, sessionId, callId, toolName, input, inputHash, preview, riskLevel, reason, suggestedRule, suggestedRules } = record
  return {
    permissionId: id,
    sessionId,
    callId,
    toolName,
    input,
    inputHash,
    preview,
    riskLevel,
    reason,
    ...(suggestedRule === undefined ? {} : { suggestedRule }),
    ...(suggestedRules === undefined ? {} : { suggestedRules }),
  }
}

/** The rule "allow for the project" adds: the server stores the suggested rule, else the tool's name. */
export const projectRuleOf = (asked: ApprovalRequest): string => asked.suggestedRule ?? asked.toolName

/** What "allow for the project" may add: the server's choices; a request without them adds its one rule. */
export const projectChoicesOf = (asked: ApprovalRequest): readonly RuleChoice[] => asked.suggestedRules ?? [{ kind: 'exact', rules: [projectRuleOf(asked)] }]

const DECIDERS: Record<DecidedBy, string> = {
  client: 'a person (another tab or client)',
  hook: 'a PermissionRequest hook',
  rule: 'a permission rule',
  broker: 'the server (a newer request replaced this one)',
  timeout: 'the timeout (nobody answered in time)',
  abort: 'the turn being aborted',
}

function decidedText(decision: unknown, decidedBy: unknown, deciderName?: unknown): string {
  const who = typeof deciderName === 'string' ? deciderName : typeof decidedBy !== 'string' ? 'someone else' : decidedBy in DECIDERS ? DECIDERS[decidedBy as DecidedBy] : decidedBy
  const what = decision === 'allow' ? 'allowed' : decision === 'deny' ? 'denied' : typeof decision === 'string' ? decision : 'decided'
  return `Already answered: ${what} by ${who}. Your answer was not used.`
}

export interface ApprovalProps {
  readonly request: ApprovalRequest
  /** Set once this tab's answer lost the race; the card stays to say so. */
  readonly outcome: string | undefined
  readonly onOutcome: (permissionId: string, outcome: string | undefined) => void
  /** The card the keys act on; it takes focus when it becomes so. */
  readonly active?: boolean
  /** `j`/`k`: to the next or previous pending approval. */
  readonly onMove?: ((step: 1 | -1) => void) | undefined
}

export function ApprovalDialog({ request: asked, outcome, onOutcome, active = false, onMove }: ApprovalProps) {
  const canDecide = useCan('approvals:decide')
  const [message, setMessage] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const [confirming, setConfirming] = useState(false)
  const card = useRef<HTMLElement>(null)
  const messageField = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    // Not away from a field the person types in (another card's message, a form).
    if (!active || isTyping(document.activeElement)) return
    const element = card.current
    // Scrolled to only when its top is out of view: the change and the decisions stay where they are.
    element?.focus({ preventScroll: true })
    const top = element?.getBoundingClientRect().top
    if (top !== undefined && (top < 0 || top > window.innerHeight - 80)) element?.scrollIntoView({ block: 'start' })
  }, [active])
  const answer = async (body: PermissionAnswerBody): Promise<void> => {
    setConfirming(false)
    setBusy(true)
    setError(undefined)
    // A request stored before requests carried the hash is answered without one.
    const bound = typeof asked.inputHash === 'string' ? { inputHash: asked.inputHash } : {}
    const reply = await request<PermissionRequestRecord>('POST', `/permissions/${encodeURIComponent(asked.permissionId)}`, { ...body, ...bound, sessionId: asked.sessionId })
    setBusy(false)
    refreshPending()
    if (reply.status === 409 && reply.errorCode === 'API_ERR_PERMISSION_DECIDED') {
      const details = (reply.errorDetails ?? {}) as { decision?: unknown; decidedBy?: unknown; deciderName?: unknown }
      onOutcome(asked.permissionId, decidedText(details.decision, details.decidedBy, details.deciderName))
    } else if (reply.status === 409) {
      onOutcome(asked.permissionId, `${reply.error ?? 'This request is no longer open.'} Your answer was not used.`)
    } else if (reply.status === 404) {
      onOutcome(asked.permissionId, 'This request is no longer open: it was answered or replaced.')
    } else if (reply.body !== undefined && reply.body.decidedBy !== undefined && reply.body.decidedBy !== 'client') {
      onOutcome(asked.permissionId, decidedText(reply.body.status, reply.body.decidedBy))
    } else if (reply.body === undefined) setError(`The server refused (${reply.status}): ${reply.error ?? ''}`)
  }
  // A request that offers choices takes the rules of the one chosen; one without adds its suggested rule.
  const allowForProject = (choice: RuleChoice): void =>
    void answer(asked.suggestedRules === undefined ? { decision: 'allow', scope: 'project' } : { decision: 'allow', scope: 'project', rules: choice.rules })
  const deny = (): void => void answer(message.trim() === '' ? { decision: 'deny' } : { decision: 'deny', message: message.trim() })
  const open = canDecide && outcome === undefined && !busy
  useApprovalKeys(card, active, {
    allowOnce: open ? () => void answer({ decision: 'allow', scope: 'once' }) : undefined,
    allowSession: open ? () => void answer({ decision: 'allow', scope: 'session' }) : undefined,
    allowProject: open ? () => setConfirming(true) : undefined,
    deny: !open ? undefined : confirming ? () => setConfirming(false) : () => messageField.current?.focus(),
    move: onMove,
  })
  const onMessageKey = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault()
      deny()
    } else if (event.key === 'Escape') {
      // Back to the card's keys; the modal it may be in stays open.
      event.preventDefault()
      card.current?.focus()
    }
  }
  const headingId = `approval-${asked.permissionId}`
  return (
    <section
      ref={card}
      tabIndex={-1}
      class={active ? 'card approval active' : 'card approval'}
      role="dialog"
      aria-labelledby={headingId}
      data-testid="approval-dialog"
      data-request-id={asked.permissionId}
      data-active={active ? 'true' : undefined}
    >
      <h2 id={headingId}>
        Approve <span data-testid="approval-tool">{asked.toolName}</span>?
      </h2>
      <p class="meta">
        <span class={`risk risk-${asked.riskLevel}`} data-testid="approval-risk">
          {asked.riskLevel} risk
        </span>
        <span>call {asked.callId}</span>
      </p>
      <p data-testid="approval-reason">{asked.reason}</p>
      <ChangeView asked={asked} />
      <p class="suggested">
        Suggested rule: <code data-testid="approval-rule">{asked.suggestedRule ?? 'none'}</code>
      </p>
      {!canDecide ? (
        <p class="hint" data-testid="approval-watch-only">
          This token may watch, not decide: it lacks the scope approvals:decide.
        </p>
      ) : outcome === undefined ? (
        <>
          <label>
            Message for the model (on deny; Enter denies, Shift+Enter a new line)
            <textarea ref={messageField} data-testid="deny-message" rows={2} value={message} onInput={(event) => setMessage(event.currentTarget.value)} onKeyDown={onMessageKey} />
          </label>
          <div class="decide">
            {confirming ? <ProjectConfirm choices={projectChoicesOf(asked)} busy={busy} onConfirm={allowForProject} onCancel={() => setConfirming(false)} /> : null}
            <div class="actions decide-buttons" data-testid="approval-actions">
              <button type="button" data-testid="approve-once" disabled={busy} aria-keyshortcuts="1" onClick={() => void answer({ decision: 'allow', scope: 'once' })}>
                <kbd aria-hidden="true">1</kbd> Allow once
              </button>
              <button type="button" data-testid="approve-session" disabled={busy} aria-keyshortcuts="2" onClick={() => void answer({ decision: 'allow', scope: 'session' })}>
                <kbd aria-hidden="true">2</kbd> Allow for this session
              </button>
              <button type="button" class="warning" data-testid="approve-project" disabled={busy} aria-keyshortcuts="3" aria-expanded={confirming} onClick={() => setConfirming(true)}>
                <kbd aria-hidden="true">3</kbd> Allow for the project…
              </button>
              <button type="button" class="danger" data-testid="deny" disabled={busy} aria-keyshortcuts="Escape d" onClick={deny}>
                <kbd aria-hidden="true">Esc</kbd> Deny
              </button>
            </div>
          </div>
          {error === undefined ? null : (
            <p class="error" role="alert">
              {error}
            </p>
          )}
        </>
      ) : (
        <div class="outcome" role="status">
          <p data-testid="approval-outcome">{outcome}</p>
          <button type="button" class="secondary" onClick={() => onOutcome(asked.permissionId, undefined)}>
            Dismiss
          </button>
        </div>
      )}
    </section>
  )
}
