/**
 * @module One pending approval: the tool, the input that will run, the preview (a diff for a
 * Write or an Edit), the risk, the reason and the suggested rule; allow once, for the session
 * or for the project (after a confirmation naming the rule it adds), or deny with a message; by
 * mouse or by key (approval-keys.ts), the card taking focus when it becomes the one looked at.
 * The answer names the input's hash, so that it
 * holds only for the input shown. An answer that lost the race (a hook or another tab answered
 * first) or came after the request closed is an outcome to show, not an error. A token
 * without the scope approvals:decide sees the request and no control to answer it.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { PermissionAnswerBody, PermissionRequestRecord } from '../../src/contracts/api.js'
import type { DecidedBy } from '../../src/contracts/events.js'
import { request } from './api.js'
import { isTyping, useApprovalKeys } from './approval-keys.js'
import { useCan } from './caller.js'
import { DiffView, previewDiff } from './diff-view.js'
import { refreshPending } from './pending.js'
import type { PermissionRequest } from './timeline.js'

/** What the card shows of a request: the event's fields, which a listed record gives too (approvalOf). */
export type ApprovalRequest = Pick<PermissionRequest, 'permissionId' | 'sessionId' | 'callId' | 'toolName' | 'input' | 'inputHash' | 'preview' | 'riskLevel' | 'reason' | 'suggestedRule'>

export function approvalOf(record: PermissionRequestRecord): ApprovalRequest {
  const { id, sessionId, callId, toolName, input, inputHash, preview, riskLevel, reason, suggestedRule } = record
  return { permissionId: id, sessionId, callId, toolName, input, inputHash, preview, riskLevel, reason, ...(suggestedRule === undefined ? {} : { suggestedRule }) }
}

/** The rule "allow for the project" adds: the server stores the suggested rule, else the tool's name. */
export const projectRuleOf = (asked: ApprovalRequest): string => asked.suggestedRule ?? asked.toolName

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

function PreviewView({ preview }: { readonly preview: unknown }) {
  const diff = previewDiff(preview)
  if (diff !== undefined) return <DiffView display={diff} testId="approval-diff" />
  if (typeof preview === 'object' && preview !== null && typeof (preview as { text?: unknown }).text === 'string') {
    return <pre class="preview-text">{(preview as { text: string }).text}</pre>
  }
  return null
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

interface ProjectConfirmProps {
  readonly rule: string
  readonly busy: boolean
  readonly onConfirm: () => void
  readonly onCancel: () => void
}

// A project rule outlives the session and lets later calls run unasked: it is added only once its text was seen.
function ProjectConfirm({ rule, busy, onConfirm, onCancel }: ProjectConfirmProps) {
  const confirm = useRef<HTMLButtonElement>(null)
  useEffect(() => confirm.current?.focus(), [])
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    onCancel()
  }
  return (
    <div class="confirm" role="group" aria-labelledby="project-confirm-text" data-testid="project-confirm" onKeyDown={onKeyDown}>
      <p id="project-confirm-text">
        Add the project rule <code data-testid="project-confirm-rule">{rule}</code>? Later calls it matches in this workspace run without asking, until the rule is deleted on the Rules page.
      </p>
      <div class="actions">
        <button type="button" ref={confirm} class="warning" data-testid="approve-project-confirm" disabled={busy} onClick={onConfirm}>
          Add the rule and allow
        </button>
        <button type="button" class="secondary" data-testid="approve-project-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  )
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
    if (active && !isTyping(document.activeElement)) card.current?.focus()
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
      <h3>Input that will run</h3>
      <pre class="input" data-testid="approval-input">
        {JSON.stringify(asked.input, null, 2)}
      </pre>
      <PreviewView preview={asked.preview} />
      <p>
        Suggested rule: <code data-testid="approval-rule">{asked.suggestedRule ?? 'none'}</code>
      </p>
      {!canDecide ? (
        <p class="hint" data-testid="approval-watch-only">
          This token may watch, not decide: it lacks the scope approvals:decide.
        </p>
      ) : outcome === undefined ? (
        <>
          <div class="actions">
            <button type="button" data-testid="approve-once" disabled={busy} aria-keyshortcuts="1" onClick={() => void answer({ decision: 'allow', scope: 'once' })}>
              <kbd aria-hidden="true">1</kbd> Allow once
            </button>
            <button type="button" data-testid="approve-session" disabled={busy} aria-keyshortcuts="2" onClick={() => void answer({ decision: 'allow', scope: 'session' })}>
              <kbd aria-hidden="true">2</kbd> Allow for this session
            </button>
            <button type="button" class="warning" data-testid="approve-project" disabled={busy} aria-keyshortcuts="3" aria-expanded={confirming} onClick={() => setConfirming(true)}>
              <kbd aria-hidden="true">3</kbd> Allow for the project…
            </button>
          </div>
          {confirming ? <ProjectConfirm rule={projectRuleOf(asked)} busy={busy} onConfirm={() => void answer({ decision: 'allow', scope: 'project' })} onCancel={() => setConfirming(false)} /> : null}
          <label>
            Message for the model (on deny; Enter denies, Shift+Enter a new line)
            <textarea ref={messageField} data-testid="deny-message" rows={2} value={message} onInput={(event) => setMessage(event.currentTarget.value)} onKeyDown={onMessageKey} />
          </label>
          <div class="actions">
            <button type="button" class="danger" data-testid="deny" disabled={busy} aria-keyshortcuts="Escape d" onClick={deny}>
              <kbd aria-hidden="true">Esc</kbd> Deny
            </button>
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
