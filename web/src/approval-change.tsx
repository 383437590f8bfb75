/**
 * @module What an approval would change, first: a Write's or an Edit's diff (the whole of it
 * on demand, windowed), a Bash command with where and how it runs, an MCP tool's server and
 * tool, and any other input as a tree. The raw JSON input stays one click away, collapsed.
 */
import { useState } from 'preact/hooks'
import type { FileDiffDisplay } from '../../src/contracts/display.js'
import { CommandView } from './command-view.js'
import { asFileDiff, DiffView, previewDiff } from './diff-view.js'
import { InputTree } from './input-tree.js'
import { WholeDiff } from './whole-diff.js'

export interface ChangeRequest {
  readonly toolName: string
  readonly input: unknown
  readonly preview?: unknown
}

const lineCount = (display: FileDiffDisplay): number => display.hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0)

function FileChange({ display, whole }: { readonly display: FileDiffDisplay; readonly whole: FileDiffDisplay | undefined }) {
  const [open, setOpen] = useState(false)
  return (
    <div class="file-change">
      {open && whole !== undefined ? <WholeDiff display={whole} /> : <DiffView display={display} testId="approval-diff" compact />}
      {whole === undefined ? null : (
        <button type="button" class="secondary" data-testid="whole-diff-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show the short diff' : `Show the whole diff (${lineCount(whole)} lines)`}
        </button>
      )}
    </div>
  )
}

/** `mcp__server__tool` as its server and tool. */
export function mcpNameOf(toolName: string): { readonly server: string; readonly tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(toolName)
  return match === null ? undefined : { server: match[1] as string, tool: match[2] as string }
}

function commandOf(toolName: string, input: unknown): string | undefined {
  if (toolName !== 'Bash' || typeof input !== 'object' || input === null) return undefined
  const command = (input as { command?: unknown }).command
  return typeof command === 'string' ? command : undefined
}

function previewText(preview: unknown): string | undefined {
  const text = typeof preview === 'object' && preview !== null ? (preview as { text?: unknown }).text : undefined
  return typeof text === 'string' ? text : undefined
}

function MainChange({ asked }: { readonly asked: ChangeRequest }) {
  const diff = previewDiff(asked.preview)
  if (diff !== undefined) return <FileChange display={diff} whole={asFileDiff((asked.preview as { wholeDiff?: unknown }).wholeDiff)} />
  const command = commandOf(asked.toolName, asked.input)
  if (command !== undefined) return <CommandView command={command} preview={asked.preview} />
  const mcp = mcpNameOf(asked.toolName)
  return (
    <>
      {mcp === undefined ? null : (
        <p class="meta" data-testid="approval-mcp">
          <span>
            MCP server <code>{mcp.server}</code>
          </span>
          <span>
            tool <code>{mcp.tool}</code>
          </span>
        </p>
      )}
      <InputTree input={asked.input} />
    </>
  )
}

export function ChangeView({ asked }: { readonly asked: ChangeRequest }) {
  const text = previewText(asked.preview)
  return (
    <div class="change" data-testid="approval-change">
      <MainChange asked={asked} />
      {text === undefined ? null : <pre class="preview-text">{text}</pre>}
      <details class="raw-input" data-testid="approval-raw">
        <summary>Raw input (JSON)</summary>
        <pre class="input" data-testid="approval-input">
          {JSON.stringify(asked.input, null, 2)}
        </pre>
      </details>
    </div>
  )
}
