/** @module The tool registry: flags, timeout policy and result budget of each tool. */
import { useEffect, useState } from 'preact/hooks'
import type { ToolInfo } from '../../src/contracts/api.js'
import { request } from './api.js'
import { formatBytes } from './format.js'

function flagsOf(tool: ToolInfo): string[] {
  const { flags } = tool
  const named: string[] = []
  if (flags.readOnly) named.push('read-only')
  if (flags.destructive) named.push('destructive')
  if (flags.concurrentSafe) named.push('concurrent-safe')
  if (flags.alwaysAsk) named.push('always asks')
  if (flags.requiresUserInteraction) named.push('needs a person')
  named.push(`scope: ${flags.sideEffectScope}`)
  return named
}

function timeoutOf(tool: ToolInfo): string {
  const timeout = tool.timeout
  if (timeout === undefined || timeout.kind === 'none') return 'none'
  const parts = [timeout.defaultMs === undefined ? 'deadline' : `${timeout.defaultMs / 1000} s`]
  if (timeout.maxMs !== undefined) parts.push(`max ${timeout.maxMs / 1000} s`)
  if (timeout.allowCallOverride === true) parts.push('call may override')
  return parts.join(', ')
}

function budgetOf(tool: ToolInfo): string {
  const budget = tool.resultBudget
  return `model ${formatBytes(budget.maxModelBytes)}, inline ${formatBytes(budget.maxInlineBytes)}, ${budget.strategy} (${budget.previewDirection})`
}

export function ToolsPage() {
  const [tools, setTools] = useState<readonly ToolInfo[] | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  useEffect(() => {
    void request<{ tools: ToolInfo[] }>('GET', '/tools').then((reply) => {
      if (reply.body === undefined) setError(reply.error)
      else setTools(reply.body.tools)
    })
  }, [])
  return (
    <section class="page" aria-labelledby="tools-title">
      <h1 id="tools-title">Tools</h1>
      {error === undefined ? null : (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="table-wrap">
        <table class="tools">
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Flags</th>
              <th scope="col">Timeout</th>
              <th scope="col">Result budget</th>
            </tr>
          </thead>
          <tbody>
            {(tools ?? []).map((tool) => (
              <tr key={tool.name} data-testid="tool-row" data-tool-name={tool.name}>
                <th scope="row">
                  <span class="tool-name">{tool.name}</span>
                  <span class="tool-description">{tool.description.split('\n')[0]}</span>
                </th>
                <td data-testid="tool-flags">{flagsOf(tool).join(' · ')}</td>
                <td data-testid="tool-timeout">{timeoutOf(tool)}</td>
                <td data-testid="tool-budget">{budgetOf(tool)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}
