/**
 * @module One pending approval: the tool, the input that will run, the preview (a diff for a
 * Write or an Edit), the risk, the reason and the suggested rule; allow once, for the session
 * or for the project, or deny with a message. The answer names the input's hash, so that it
 * holds only for the input shown. An answer that lost the race (a hook or another tab answered
 * first) or came after the request closed is an outcome to show, not an error. A token
 * without the scope approvals:decide sees the request and no control to answer it.
 */
import { useState } from 'preact/hooks'
import type { PermissionAnswerBody, PermissionRequestRecord } from '../../src/contracts/api.js'
import type { DecidedBy } from '../../src/contracts/events.js'
import { request } from './api.js'
import { useCan } from './caller.js'
import { DiffView, previewDiff } from './diff-view.js'
import type { PermissionRequest } from './timeline.js'

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
  readonly request: PermissionRequest
  /** Set once this tab's answer lost the race; the card stays to say so. */
  readonly outcome: string | undefined
  readonly onOutcome: (permissionId: string, outcome: string | undefined) => void
}

export function ApprovalDialog({ request: asked, outcome, onOutcome }: ApprovalProps) {
  const canDecide = useCan('approvals:decide')
  const [message, setMessage] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const answer = async (body: PermissionAnswerBody): Promise<void> => {
    setBusy(true)
    setError(undefined)
    // A request stored before requests carried the hash is answered without one.
    const bound = typeof asked.inputHash === 'string' ? { inputHash: asked.inputHash } : {}
    const reply = await request<PermissionRequestRecord>('POST', `/permissions/${encodeURIComponent(asked.permissionId)}`, { ...body, ...bound, sessionId: asked.sessionId })
    setBusy(false)
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
  const headingId = `approval-${asked.permissionId}`
  return (
    <section class="card approval" role="dialog" aria-labelledby={headingId} data-testid="approval-dialog" data-request-id={asked.permissionId}>
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
            <button type="button" data-testid="approve-once" disabled={busy} onClick={() => void answer({ decision: 'allow', scope: 'once' })}>
              Allow once
            </button>
            <button type="button" data-testid="approve-session" disabled={busy} onClick={() => void answer({ decision: 'allow', scope: 'session' })}>
              Allow for this session
            </button>
            <button type="button" data-testid="approve-project" disabled={busy} onClick={() => void answer({ decision: 'allow', scope: 'project' })}>
              Allow for the project
            </button>
          </div>
          <label>
            Message for the model (on deny)
            <textarea data-testid="deny-message" rows={2} value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
          </label>
          <div class="actions">
            <button
              type="button"
              class="danger"
              data-testid="deny"
              disabled={busy}
              onClick={() => void answer(message.trim() === '' ? { decision: 'deny' } : { decision: 'deny', message: message.trim() })}
            >
              Deny
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
