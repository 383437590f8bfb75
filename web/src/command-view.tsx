/**
 * @module A Bash approval's change: the command, highlighted, the directory it runs in, and
 * its sandbox as the server reports it in the request's preview (confined or not, where an
 * allowed command may write, whether it reaches the network).
 */
import type { CommandPreview } from '../../src/contracts/tool-entry.js'
import { HighlightedCommand } from './command-highlight.js'

export function commandPreviewOf(preview: unknown): CommandPreview | undefined {
  if (typeof preview !== 'object' || preview === null) return undefined
  const command = (preview as { command?: unknown }).command
  return typeof command === 'object' && command !== null && typeof (command as { cwd?: unknown }).cwd === 'string' ? (command as CommandPreview) : undefined
}

function SandboxText({ runs }: { readonly runs: CommandPreview }) {
  if (!runs.confined) {
    return <span class="sandbox-off">Not confined ({runs.reason ?? 'no sandbox here'}): it may write and reach whatever the server's user may.</span>
  }
  return (
    <span>
      Confined. It may write in <code>{runs.writable.join(', ')}</code>
      {runs.protected.length > 0 ? (
        <>
          {' '}
          but not <code>{runs.protected.join(', ')}</code>
        </>
      ) : null}
      ; network {runs.network ? 'on' : 'off'}.
    </span>
  )
}

export function CommandView({ command, preview }: { readonly command: string; readonly preview: unknown }) {
  const runs = commandPreviewOf(preview)
  return (
    <div class="command-view">
      <HighlightedCommand command={command} />
      {runs === undefined ? null : (
        <dl class="runs-in">
          <div>
            <dt>Directory</dt>
            <dd data-testid="command-cwd">
              <code>{runs.cwd}</code>
            </dd>
          </div>
          <div>
            <dt>Sandbox</dt>
            <dd data-testid="command-sandbox" data-confined={runs.confined ? 'true' : 'false'}>
              <SandboxText runs={runs} />
            </dd>
          </div>
        </dl>
      )}
    </div>
  )
}
