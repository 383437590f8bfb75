/** @module Project grants (approvals with scope "project"): list, and delete with the scope rules:write. */
import { useState } from 'preact/hooks'
import type { ProjectRule } from '../../src/contracts/api.js'
import { request } from './api.js'
import { useCan } from './caller.js'
import { usePolling } from './polling.js'

export function RulesPage() {
  const [rules, setRules] = useState<readonly ProjectRule[] | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const canDelete = useCan('rules:write')
  const reload = usePolling(async () => {
    const reply = await request<{ rules: ProjectRule[] }>('GET', '/permissions/rules')
    if (reply.body === undefined) setError(reply.error)
    else setRules(reply.body.rules)
  }, true)
  const remove = async (rule: ProjectRule): Promise<void> => {
    const reply = await request('DELETE', `/permissions/rules/${encodeURIComponent(rule.id)}`)
    setError(reply.status === 204 || reply.status === 404 ? undefined : `The server refused (${reply.status}): ${reply.error ?? ''}`)
    reload()
  }
  return (
    <section class="page" aria-labelledby="rules-title">
      <h1 id="rules-title">Project rules</h1>
      <p class="hint">Allow rules granted per workspace by "allow for the project". Deleting one makes later calls it covered ask again.</p>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {rules?.length === 0 ? <p class="empty">No project rules.</p> : null}
      <ul class="list">
        {(rules ?? []).map((rule) => (
          <li key={rule.id} class="card rule-row" data-testid="rule-row" data-rule-id={rule.id}>
            <code class="rule">{rule.rule}</code>
            <div class="meta">
              <span class="workspace">{rule.workspace}</span>
              <span>granted {new Date(rule.createdAt).toLocaleString()}</span>
            </div>
            {canDelete ? (
              <div class="actions">
                <button type="button" class="danger" data-testid="rule-delete" onClick={() => void remove(rule)} aria-label={`Delete rule ${rule.rule}`}>
                  Delete
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  )
}
