/** @module Asks for the server's token or an API key; a refused one is said so and the dialog stays. */
import { useState } from 'preact/hooks'
import { storeToken } from './api.js'
import { fetchCaller, type Caller } from './caller.js'
import { Modal } from './modal.js'

export function TokenDialog({ onAccepted }: { readonly onAccepted: (caller: Caller) => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault()
    setBusy(true)
    const reply = await fetchCaller(token)
    setBusy(false)
    if (reply.status === 401) setError('The server refused this token (401).')
    else if (reply.body === undefined) setError(reply.error)
    else {
      storeToken(token)
      onAccepted(reply.body)
    }
  }
  return (
    <Modal testId="token-dialog" label="Server token">
      <form method="dialog" onSubmit={(event) => void submit(event)}>
        <h2>This server needs a token</h2>
        <p>Enter the server's TOOLEXEC_TOKEN or an API key (txk_…). It is kept in this tab only (sessionStorage) and sent as a bearer header.</p>
        <label>
          Token
          <input data-testid="token-input" type="password" autoComplete="off" required value={token} onInput={(event) => setToken(event.currentTarget.value)} />
        </label>
        {error === undefined ? null : (
          <p class="error" role="alert" data-testid="token-error">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="submit" data-testid="token-submit" disabled={busy}>
            Use this token
          </button>
        </div>
      </form>
    </Modal>
  )
}
