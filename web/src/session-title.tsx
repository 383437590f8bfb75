/**
 * @module A session's heading: its label, else its workspace's folder and start time, with its
 * id below; renamed in place (PATCH /sessions/:id) by a token that may create sessions.
 */
import { useEffect, useState } from 'preact/hooks'
import type { Session } from '../../src/contracts/api.js'
import { SESSION_LABEL_MAX } from '../../src/contracts/session-label.js'
import { request } from './api.js'
import { useCan } from './caller.js'
import { sessionName } from './session-name.js'

/** The session's record, read once when the view opens and replaced by a rename's reply. */
export function useSessionRecord(sessionId: string): [Session | undefined, (session: Session) => void] {
  const [session, setSession] = useState<Session | undefined>(undefined)
  useEffect(() => {
    let stopped = false
    void request<Session>('GET', `/sessions/${encodeURIComponent(sessionId)}`).then((reply) => {
      if (!stopped && reply.body !== undefined) setSession(reply.body)
    })
    return () => {
      stopped = true
    }
  }, [sessionId])
  return [session, setSession]
}

function RenameForm({ session, onDone }: { readonly session: Session; readonly onDone: (renamed?: Session) => void }) {
  const [label, setLabel] = useState(session.label ?? '')
  const [error, setError] = useState<string | undefined>(undefined)
  const save = async (event: Event): Promise<void> => {
    event.preventDefault()
    const reply = await request<Session>('PATCH', `/sessions/${encodeURIComponent(session.id)}`, { label: label.trim() === '' ? null : label.trim() })
    if (reply.body === undefined) setError(`The server refused (${reply.status}): ${reply.error ?? ''}`)
    else onDone(reply.body)
  }
  return (
    <form class="rename-form" data-testid="rename-form" onSubmit={(event) => void save(event)} onKeyDown={(event) => event.key === 'Escape' && onDone()}>
      <label>
        Label
        <input data-testid="rename-input" maxLength={SESSION_LABEL_MAX} placeholder="empty: the folder and start time" value={label} onInput={(event) => setLabel(event.currentTarget.value)} />
      </label>
      <button type="submit" data-testid="rename-save">
        Save
      </button>
      <button type="button" class="secondary" onClick={() => onDone()}>
        Cancel
      </button>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  )
}

export function SessionTitle({ sessionId, session, onRenamed }: { readonly sessionId: string; readonly session: Session | undefined; readonly onRenamed: (session: Session) => void }) {
  const [renaming, setRenaming] = useState(false)
  const canRename = useCan('sessions:create')
  return (
    <div class="session-title">
      <h1 id="session-title" data-testid="session-name">
        {session === undefined ? sessionId : sessionName(session)}
      </h1>
      <code class="session-id" data-testid="session-id">
        {sessionId}
      </code>
      {canRename && session !== undefined && !renaming ? (
        <button type="button" class="secondary" data-testid="rename-session" onClick={() => setRenaming(true)}>
          Rename
        </button>
      ) : null}
      {renaming && session !== undefined ? (
        <RenameForm
          session={session}
          onDone={(renamed) => {
            setRenaming(false)
            if (renamed !== undefined) onRenamed(renamed)
          }}
        />
      ) : null}
    </div>
  )
}
