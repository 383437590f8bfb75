/**
 * @module The sessions, newest first, live, a page at a time ("More" shows the next): each by
 * its label, else its workspace's folder and start time; create one, open one, delete one (a
 * refusal says why); which wait for a person and for how long, with a way to answer there;
 * creating and deleting are offered only to a token holding their scope.
 */
import { useEffect, useState } from 'preact/hooks'
import type { CreateSessionBody, Session, SessionList } from '../../src/contracts/api.js'
import { request } from './api.js'
import { useCan } from './caller.js'
import { formatAge } from './format.js'
import { usePolling } from './polling.js'
import { useQueue } from './queue-context.js'
import { sessionHref } from './route.js'
import { sessionName } from './session-name.js'

/** Sessions a "More" adds; the API gives at most 500 in one reply. */
export const SESSIONS_PAGE = 100
const MAX_REPLY = 500

const MODES: readonly NonNullable<CreateSessionBody['permissionMode']>[] = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']

function deleteRefusal(status: number, message: string | undefined): string {
  if (status === 409) return `The server refused (409): ${message ?? 'the session still has work going on'}. Abort its turn first, then delete it.`
  return `The server refused (${status}): ${message ?? 'unknown error'}`
}

function SessionForm({ onCreated, onClose }: { readonly onCreated: () => void; readonly onClose: () => void }) {
  const [workspace, setWorkspace] = useState('')
  const [mode, setMode] = useState<(typeof MODES)[number]>('default')
  const [interactive, setInteractive] = useState(true)
  const [error, setError] = useState<string | undefined>(undefined)
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault()
    const body: CreateSessionBody = { permissionMode: mode, interactive }
    if (workspace.trim() !== '') body.workspace = workspace.trim()
    const reply = await request<Session>('POST', '/sessions', body)
    if (reply.status !== 201) {
      setError(`The server refused (${reply.status}): ${reply.error ?? ''}`)
      return
    }
    onCreated()
  }
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') onClose()
  }
  return (
    <form class="card session-form" data-testid="session-form" onSubmit={(event) => void submit(event)} onKeyDown={onKeyDown}>
      <h2>New session</h2>
      <label>
        Workspace
        <input data-testid="session-workspace" placeholder="the server's default workspace" value={workspace} onInput={(event) => setWorkspace(event.currentTarget.value)} />
      </label>
      <label>
        Permission mode
        <select data-testid="session-mode" value={mode} onChange={(event) => setMode(event.currentTarget.value as (typeof MODES)[number])}>
          {MODES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input data-testid="session-interactive" type="checkbox" checked={interactive} onChange={(event) => setInteractive(event.currentTarget.checked)} />
        Interactive (a person answers approvals)
      </label>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" data-testid="session-create">
          Create
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  )
}

interface DeleteControlsProps {
  readonly confirming: boolean
  readonly onAsk: () => void
  readonly onConfirm: () => void
  readonly onCancel: () => void
}

// Deleting loses the session's history: a second, explicit click confirms it (no window.confirm, which blocks the page).
function DeleteControls({ confirming, onAsk, onConfirm, onCancel }: DeleteControlsProps) {
  return (
    <div class="actions">
      {confirming ? (
        <>
          <button type="button" class="danger" data-testid="session-delete-confirm" onClick={onConfirm}>
            Delete its history for good
          </button>
          <button type="button" class="secondary" data-testid="session-delete-cancel" onClick={onCancel}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" class="danger" data-testid="session-delete" onClick={onAsk}>
          Delete
        </button>
      )}
    </div>
  )
}

/** "2 approvals waiting for 3 min (since 10:42:03)" and the way to the oldest, from the header's queue. */
function Waiting({ sessionId }: { readonly sessionId: string }) {
  const queue = useQueue()
  const waiting = queue.requests.filter((request) => request.sessionId === sessionId)
  const oldest = waiting[0]
  if (oldest === undefined) return null
  const since = new Date(oldest.createdAt).toLocaleTimeString()
  return (
    <div class="waiting" data-testid="session-waiting" data-since={oldest.createdAt}>
      <span>
        {waiting.length} approval{waiting.length === 1 ? '' : 's'} waiting for <span data-testid="session-waiting-age">{formatAge(Date.now() - Date.parse(oldest.createdAt))}</span> (since{' '}
        <time dateTime={oldest.createdAt}>{since}</time>)
      </span>
      <button type="button" data-testid="session-answer" aria-label={`Answer the oldest approval of session ${sessionId}`} onClick={() => queue.open(oldest.id)}>
        Answer
      </button>
    </div>
  )
}

function SessionRow({ session, onDeleted }: { readonly session: Session; readonly onDeleted: () => void }) {
  const [error, setError] = useState<string | undefined>(undefined)
  const [confirming, setConfirming] = useState(false)
  const canDelete = useCan('sessions:delete')
  const remove = async (): Promise<void> => {
    setConfirming(false)
    const reply = await request('DELETE', `/sessions/${encodeURIComponent(session.id)}`)
    if (reply.status === 204) {
      setError(undefined)
      onDeleted()
    } else setError(deleteRefusal(reply.status, reply.error))
  }
  const { counts } = session
  return (
    <li class={counts.pendingPermissions > 0 ? 'card session-row waits' : 'card session-row'} data-testid="session-row" data-session-id={session.id}>
      <div class="row-head">
        <span class="session-names">
          <a class="session-link" href={sessionHref(session.id)} data-testid="session-name">
            {sessionName(session)}
          </a>
          <code class="session-id">{session.id}</code>
        </span>
        <span class={`status status-${session.status}`} data-testid="session-status">
          {session.status}
        </span>
      </div>
      <div class="meta">
        <span title="workspace" class="workspace">
          {session.workspace}
        </span>
        <span>{session.permissionMode}</span>
        <span>
          {counts.schedules} schedules · {counts.calls} calls · {counts.pendingPermissions} pending
        </span>
        <span>created {new Date(session.createdAt).toLocaleString()}</span>
      </div>
      <Waiting sessionId={session.id} />
      {canDelete ? <DeleteControls confirming={confirming} onAsk={() => setConfirming(true)} onConfirm={() => void remove()} onCancel={() => setConfirming(false)} /> : null}
      {error === undefined ? null : (
        <p class="error" role="alert" data-testid="session-delete-error">
          {error}
        </p>
      )}
    </li>
  )
}

export function SessionsPage() {
  const [sessions, setSessions] = useState<readonly Session[] | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [creating, setCreating] = useState(false)
  const [wanted, setWanted] = useState(SESSIONS_PAGE)
  const [more, setMore] = useState(false)
  const canCreate = useCan('sessions:create')
  // Every page shown is read again on each poll, so a session created meanwhile shifts none out of view.
  const reload = usePolling(async () => {
    const read: Session[] = []
    let before: string | undefined
    do {
      const query = new URLSearchParams({ limit: String(Math.min(wanted - read.length, MAX_REPLY)) })
      if (before !== undefined) query.set('before', before)
      const reply = await request<SessionList>('GET', `/sessions?${query.toString()}`)
      if (reply.body === undefined) {
        setError(reply.error)
        return
      }
      read.push(...reply.body.sessions)
      before = reply.body.next
    } while (before !== undefined && read.length < wanted)
    setError(undefined)
    setSessions(read)
    setMore(before !== undefined)
  }, true)
  // Runs after the render that gave the load its new `wanted`.
  useEffect(() => {
    if (wanted > SESSIONS_PAGE) reload()
  }, [wanted, reload])
  return (
    <section class="page" aria-labelledby="sessions-title">
      <div class="page-head">
        <h1 id="sessions-title">Sessions</h1>
        {canCreate ? (
          <button type="button" data-testid="new-session" aria-expanded={creating} onClick={() => setCreating(!creating)}>
            New session
          </button>
        ) : null}
      </div>
      {creating && canCreate ? (
        <SessionForm
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false)
            reload()
          }}
        />
      ) : null}
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {sessions === undefined ? <p>Loading…</p> : sessions.length === 0 ? <p class="empty">No sessions yet.</p> : null}
      <ul class="list" data-testid="session-list">
        {(sessions ?? []).map((session) => (
          <SessionRow key={session.id} session={session} onDeleted={reload} />
        ))}
      </ul>
      {more ? (
        <button type="button" class="secondary sessions-more" data-testid="sessions-more" onClick={() => setWanted(wanted + SESSIONS_PAGE)}>
          More sessions
        </button>
      ) : null}
    </section>
  )
}
