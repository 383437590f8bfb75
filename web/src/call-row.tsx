/**
 * @module One call: tool, input summary, status, timing, who allowed or denied it, live
 * progress; its result opens below, at once for a call that failed or was denied (the reason first).
 */
import { useState } from 'preact/hooks'
import { PROBLEM_STATUSES } from './call-filter.js'
import { formatBytes, formatMs, summarizeInput } from './format.js'
import { ArtifactButton, artifactsOf, DisplayView, ModelContentView } from './result-view.js'
import type { CallState } from './timeline.js'

function Timing({ call }: { readonly call: CallState }) {
  const perf = call.result?.perf
  if (perf !== undefined) {
    return (
      <span class="timing" data-testid="call-timing" title="total · waiting for approval · queued">
        {formatMs(perf.totalMs)} total · {formatMs(perf.permissionWaitMs)} approval · {formatMs(perf.queuedMs)} queued
      </span>
    )
  }
  return (
    <span class="timing" data-testid="call-timing">
      {call.startedAt === undefined ? '' : `started ${new Date(call.startedAt).toLocaleTimeString()}`}
    </span>
  )
}

function Progress({ progress }: { readonly progress: Record<string, unknown> }) {
  const elapsed = typeof progress.elapsedMs === 'number' ? formatMs(progress.elapsedMs) : undefined
  const bytes = typeof progress.outputBytes === 'number' ? formatBytes(progress.outputBytes) : undefined
  const tail = typeof progress.outputTail === 'string' ? progress.outputTail : undefined
  return (
    <div class="progress" data-testid="call-progress" aria-live="polite">
      <span>{[elapsed === undefined ? undefined : `running ${elapsed}`, bytes === undefined ? undefined : `${bytes} output`].filter(Boolean).join(' · ') || JSON.stringify(progress)}</span>
      {tail === undefined || tail === '' ? null : <pre class="terminal tail">{tail}</pre>}
    </div>
  )
}

function Details({ call }: { readonly call: CallState }) {
  const result = call.result
  return (
    <div class="call-details">
      {call.input === undefined ? null : (
        <details>
          <summary>Input</summary>
          <pre class="input">{JSON.stringify(call.input, null, 2)}</pre>
        </details>
      )}
      {call.hooks.length === 0 ? null : (
        <ul class="hooks">
          {call.hooks.map((hook) => (
            <li key={hook.seq}>{hook.text}</li>
          ))}
        </ul>
      )}
      {result === undefined ? (
        <p class="hint">No result yet.</p>
      ) : (
        <>
          {result.error === undefined ? null : (
            <p class="error" data-testid="call-reason">
              {result.error.stage} · {result.error.errorClass}
              {result.error.code === undefined ? '' : ` · ${result.error.code}`}: {result.error.message}
            </p>
          )}
          <h4>What the model saw</h4>
          <ModelContentView content={result.modelContent} />
          {result.serialization.truncated ? (
            <p class="notice">
              Cut to {formatBytes(result.serialization.actualBytes)} of {formatBytes(result.serialization.originalBytes)} ({result.serialization.strategy}).
            </p>
          ) : null}
          {result.display === undefined ? null : (
            <>
              <h4>Display</h4>
              <DisplayView display={result.display} />
            </>
          )}
          {artifactsOf(result).map((link) => (
            <ArtifactButton key={link.uri} link={link} />
          ))}
        </>
      )}
    </div>
  )
}

export function CallRow({ call }: { readonly call: CallState }) {
  // Unset until the person toggles it: a call that fails later still opens by itself.
  const [toggled, setOpen] = useState<boolean | undefined>(undefined)
  const open = toggled ?? PROBLEM_STATUSES.has(call.status)
  const detailsId = `call-details-${call.id}`
  return (
    <article class={`call-row status-${call.status}`} data-testid="call-row" data-call-id={call.id} data-status={call.status}>
      <button type="button" class="call-toggle" data-testid="call-toggle" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen(!open)}>
        <span class="call-tool" data-testid="call-tool">
          {call.toolName ?? '…'}
        </span>
        <span class="call-summary" data-testid="call-summary">
          {summarizeInput(call.input)}
        </span>
        <span class={`status status-${call.status}`}>{call.status}</span>
      </button>
      <Timing call={call} />
      {call.decision === undefined ? null : (
        <p class="decision" data-testid="call-decision">
          Permission: {call.decision}
        </p>
      )}
      {call.status === 'running' && call.progress !== undefined ? <Progress progress={call.progress} /> : null}
      {open ? (
        <div id={detailsId}>
          <Details call={call} />
        </div>
      ) : null}
    </article>
  )
}
