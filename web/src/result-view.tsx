/**
 * @module A result's two projections: what the model saw (`modelContent`, exactly) and the
 * display (a diff, a command's output, an MCP tool's text, ...), with its artifacts.
 */
import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import type { Display } from '../../src/contracts/display.js'
import type { ModelContent } from '../../src/contracts/model-content.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { downloadArtifact, previewArtifact, type ArtifactPreview } from './api.js'
import { DiffView } from './diff-view.js'
import { formatBytes } from './format.js'

export function ModelContentView({ content }: { readonly content: ModelContent }) {
  // textContent of the <pre> is the modelContent string itself; an image adds no text to it.
  return (
    <pre class="model-content" data-testid="model-content">
      {typeof content === 'string'
        ? content
        : content.map((block, index) =>
            block.type === 'text' ? (
              <span key={index}>{block.text}</span>
            ) : (
              <img key={index} class="block-image" alt="" title={`image (${block.mediaType})`} src={block.data === undefined ? undefined : `data:${block.mediaType};base64,${block.data}`} />
            ),
          )}
    </pre>
  )
}

function BashOutput({ display }: { readonly display: Extract<Display, { kind: 'bash_output' }> }) {
  return (
    <div class="bash-output">
      <p class="command">
        <code>$ {display.command}</code>
        <span>exit {display.exitCode === null ? 'none (killed)' : display.exitCode}</span>
        {display.confined === true ? <span>sandboxed</span> : null}
      </p>
      <pre class="terminal">{display.output}</pre>
      {display.truncated ? (
        <p class="notice">
          Output shortened: {formatBytes(display.originalBytes)} in all{display.persistedPath === undefined ? '' : `, saved as ${display.persistedPath}`}.
        </p>
      ) : null}
    </div>
  )
}

function GenericDisplay({ display }: { readonly display: Display }) {
  const { kind, ...fields } = display
  return (
    <dl class="fields">
      <dt>kind</dt>
      <dd>{kind}</dd>
      {Object.entries(fields).map(([key, value]) => (
        <Fragment key={key}>
          <dt>{key}</dt>
          <dd>{typeof value === 'string' ? <pre>{value}</pre> : <code>{JSON.stringify(value)}</code>}</dd>
        </Fragment>
      ))}
    </dl>
  )
}

export function DisplayView({ display }: { readonly display: Display }) {
  let body
  switch (display.kind) {
    case 'file_diff':
      body = <DiffView display={display} />
      break
    case 'bash_output':
      body = <BashOutput display={display} />
      break
    case 'mcp_tool':
      body = (
        <div class={display.isError ? 'mcp error-output' : 'mcp'}>
          <p>
            MCP <code>{display.server}</code> / <code>{display.tool}</code>
            {display.isError ? ' (error)' : ''}
          </p>
          <pre>{display.text}</pre>
          {display.truncated ? <p class="notice">Text shortened.</p> : null}
        </div>
      )
      break
    case 'background_task_output':
      body = (
        <div>
          <p>
            Task <code>{display.taskId}</code>: {display.status}
          </p>
          <pre class="terminal">{display.output}</pre>
        </div>
      )
      break
    default:
      body = <GenericDisplay display={display} />
  }
  return (
    <div class="display" data-testid="call-display" data-kind={display.kind}>
      {body}
    </div>
  )
}

export interface ArtifactLink {
  readonly uri: string
  readonly fileName: string
}

const basename = (file: string): string => file.split(/[\\/]/).at(-1) ?? file

/** Every artifact a result names: the saved output, saved images. */
export function artifactsOf(result: ToolExecutionResult): ArtifactLink[] {
  const links: ArtifactLink[] = []
  const add = (uri: string | undefined, file: string | undefined): void => {
    if (uri === undefined || links.some((link) => link.uri === uri)) return
    links.push({ uri, fileName: file === undefined ? (uri.split('/').at(-1) ?? 'artifact') : basename(file) })
  }
  add(result.serialization.artifactUri, result.serialization.persistedPath)
  const output = result.output
  if (typeof output === 'object' && output !== null) {
    const { artifactUri, persistedPath } = output as { artifactUri?: unknown; persistedPath?: unknown }
    if (typeof artifactUri === 'string') add(artifactUri, typeof persistedPath === 'string' ? persistedPath : undefined)
  }
  if (Array.isArray(result.modelContent)) for (const block of result.modelContent) if (block.type === 'image') add(block.artifactUri, block.path)
  return links
}

export function ArtifactButton({ link }: { readonly link: ArtifactLink }) {
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const [preview, setPreview] = useState<ArtifactPreview | undefined>(undefined)
  const download = async (): Promise<void> => {
    setBusy(true)
    setError(await downloadArtifact(link.uri, link.fileName))
    setBusy(false)
  }
  const open = async (): Promise<void> => {
    if (preview !== undefined) return closePreview()
    setBusy(true)
    setPreview(await previewArtifact(link.uri))
    setBusy(false)
  }
  const closePreview = (): void => {
    if (preview?.kind === 'image') URL.revokeObjectURL(preview.url)
    setPreview(undefined)
  }
  return (
    <div class="artifact">
      <button type="button" data-testid="artifact-open" aria-expanded={preview !== undefined} disabled={busy} onClick={() => void open()}>
        {preview === undefined ? 'Open' : 'Close'} {link.fileName}
      </button>
      <button type="button" data-testid="artifact-download" disabled={busy} onClick={() => void download()}>
        Download
      </button>
      {error === undefined ? null : (
        <span class="error" role="alert">
          {error}
        </span>
      )}
      {preview === undefined ? null : <ArtifactPreviewView preview={preview} fileName={link.fileName} />}
    </div>
  )
}

function ArtifactPreviewView({ preview, fileName }: { readonly preview: ArtifactPreview; readonly fileName: string }) {
  if (preview.kind === 'error') {
    return (
      <span class="error" role="alert">
        {preview.message}
      </span>
    )
  }
  if (preview.kind === 'image') return <img class="artifact-image" data-testid="artifact-preview" src={preview.url} alt={fileName} />
  const whole = preview.shownBytes >= preview.totalBytes
  return (
    <figure class="artifact-preview">
      <figcaption data-testid="artifact-preview-size">
        {whole ? `${formatBytes(preview.totalBytes)}, whole` : `First ${formatBytes(preview.shownBytes)} of ${formatBytes(preview.totalBytes)}: download for the whole`}
      </figcaption>
      <pre data-testid="artifact-preview">{preview.text}</pre>
    </figure>
  )
}
