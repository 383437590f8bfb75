/**
 * @module What the model reads of a Bash run. Small output as it is, then a status line
 * (exit code, timeout, abort). Large output as Bash's own persisted-output envelope: the
 * head and the tail with the path of the whole, sizes written binary (A2). The same
 * envelope serves a run the tool streamed to an artifact itself and one the executor saved
 * (formatPersistedModelContent), so the model sees one format.
 */
import type { PersistedContentArgs } from '../../contracts/tool-entry.js'
import { cutTailToBytes, formatBytesBinary } from '../../output/bytes.js'
import { PREVIEW_CHARS, previewFirstChars } from '../../output/persisted-output.js'
import type { BashCommandOutput } from './bash-output.js'

/** A1: Bash's result budget, in bytes. */
export const BASH_RESULT_BUDGET_BYTES = 30_000
export const TAIL_PREVIEW_BYTES = 8 * 1024

export interface BashEnvelopeArgs {
  /** Text whose beginning is the output's beginning. */
  readonly head: string
  /** Text whose end is the output's end, status lines included. */
  readonly tail: string
  readonly originalBytes: number
  readonly persistedPath?: string | undefined
  /** Replaces the sentence about where the whole output is (a task still writing it). */
  readonly whereSaved?: string | undefined
}

function joinLines(text: string, lines: readonly string[]): string {
  const body = text.replace(/\s+$/, '')
  if (lines.length === 0) return body
  return body === '' ? lines.join('\n') : `${body}\n${lines.join('\n')}`
}

/** Exit code when it is not 0, or when the model will not see the whole output anyway. */
export function statusLines(output: BashCommandOutput): string[] {
  if (output.timedOut) return [`Command timed out after ${output.timeoutMs}ms`]
  if (output.interrupted) return ['Command was aborted before completion']
  const large = output.omitted !== undefined || output.totalBytes > BASH_RESULT_BUDGET_BYTES
  return output.exitCode !== 0 || large ? [`Exit code ${output.exitCode ?? 'unknown'}`] : []
}

/**
 * The last `maxBytes` of `text`, starting at a line when a newline lies in the first half
 * (the mirror of R34's preview).
 */
export function tailPreview(text: string, maxBytes: number = TAIL_PREVIEW_BYTES): string {
  const tail = cutTailToBytes(text, maxBytes)
  if (tail.length === text.length) return tail
  const newline = tail.indexOf('\n')
  return newline !== -1 && newline < tail.length / 2 ? tail.slice(newline + 1) : tail
}

/** R33's envelope with Bash's binary sizes, and the tail as well as the head. */
export function formatBashEnvelope(args: BashEnvelopeArgs): string {
  const { preview } = previewFirstChars(args.head, PREVIEW_CHARS)
  const saved = args.whereSaved ?? (args.persistedPath === undefined ? 'The full output was not saved.' : `Full output saved to: ${args.persistedPath}`)
  return [
    '<persisted-output>',
    `Output too large (${formatBytesBinary(args.originalBytes)}). ${saved}`,
    '',
    `Preview (first ${formatBytesBinary(PREVIEW_CHARS)}):`,
    preview,
    '...',
    `Last ${formatBytesBinary(TAIL_PREVIEW_BYTES)}:`,
    tailPreview(args.tail).replace(/\s+$/, ''),
    '</persisted-output>',
  ].join('\n')
}

/** formatPersistedModelContent: the executor saved `content` whole (R32). */
export function formatPersistedBashContent(args: PersistedContentArgs): string {
  return formatBashEnvelope({ head: args.content, tail: args.content, originalBytes: args.originalBytes, persistedPath: args.persistedPath })
}

/** formatModelContent of a finished command. */
export function formatCommandText(output: BashCommandOutput): string {
  const status = statusLines(output)
  const omitted = output.omitted
  if (omitted === undefined) return joinLines(output.output, status)
  return formatBashEnvelope({
    head: omitted.head,
    tail: joinLines(omitted.tail, status),
    originalBytes: output.totalBytes,
    persistedPath: output.persistedPath,
    whereSaved: output.artifactError === undefined ? undefined : `The full output was not saved (${output.artifactError}).`,
  })
}

export function formatBackgroundText(taskId: string): string {
  return `Command running in background with ID: ${taskId}`
}
