/**
 * @module serializeOutput (R31-R36): turns a tool's output into what the model receives,
 * within the tool's result budget, saving large text and media as artifacts when it can.
 * A failed artifact write degrades to truncation and never fails the call (R32).
 */
import type { ModelContent, ModelContentBlock, TextBlock } from '../contracts/model-content.js'
import type { ArtifactRef, ArtifactStore } from '../contracts/ports.js'
import type { Serialization } from '../contracts/result.js'
import type { ResultBudget, Retention, ToolEntry } from '../contracts/tool-entry.js'
import { cutToBytes, utf8ByteLength, type CutDirection } from '../output/bytes.js'
import { formatPersistedOutputEnvelope } from '../output/persisted-output.js'

export const DEFAULT_RESULT_BUDGET: ResultBudget = {
  maxModelBytes: 100_000,
  maxInlineBytes: 100_000,
  strategy: 'truncate',
  previewDirection: 'head',
}

/** R35: the text around screenshot frames obeys this whatever the tool declares above it. */
export const SCREENSHOT_TEXT_BUDGET_BYTES = 256 * 1024

export interface SerializeInput {
  readonly entry: ToolEntry
  readonly toolName: string
  readonly output: unknown
  readonly sessionId: string
  readonly callId: string
  readonly artifacts?: ArtifactStore | undefined
}

export interface SerializedOutput {
  readonly modelContent: ModelContent
  /** The full, untruncated text (text blocks joined with "\n"). */
  readonly fullText: string
  readonly serialization: Serialization
  /** The text artifact, when the full text was saved. */
  readonly artifact?: ArtifactRef | undefined
  /** Why an artifact write failed; the call still succeeds. */
  readonly artifactError?: string | undefined
}

export interface TruncationNoticeArgs {
  readonly originalBytes: number
  readonly budgetBytes: number
  readonly strategy: ResultBudget['strategy']
  readonly artifactPath?: string | undefined
}

function budgetOf(entry: Pick<ToolEntry, 'resultBudget'>): ResultBudget {
  return entry.resultBudget ?? DEFAULT_RESULT_BUDGET
}

/** R35: a model budget above the inline budget gets the smaller one. */
export function effectiveBudgetBytes(entry: Pick<ToolEntry, 'resultBudget'>): number {
  const budget = budgetOf(entry)
  return Math.min(budget.maxModelBytes, budget.maxInlineBytes)
}

/** A3, exactly; it is appended last and never cut. */
export function formatTruncationNotice(args: TruncationNoticeArgs): string {
  const path = args.artifactPath === undefined ? '' : `artifactPath=${args.artifactPath}, `
  return `\n\n[Tool output truncated by resultBudget: ${path}originalBytes=${args.originalBytes}, ` + `maxModelBytes=${args.budgetBytes}, strategy=${args.strategy}]`
}

/** Why the full output was not saved, told before A3's notice (which stays last) when both fit the budget. */
export function withUnsavedReason(artifactError: string | undefined, notice: string, budgetBytes: number): string {
  if (artifactError === undefined) return notice
  const told = `\n\n[Full output not saved: ${artifactError}]${notice}`
  return utf8ByteLength(told) <= budgetBytes ? told : notice
}

/** Cuts `text` by whole code points so that it plus `notice` fits `budgetBytes`, then appends it. */
export function truncateWithNotice(text: string, budgetBytes: number, direction: CutDirection, notice: string): string {
  const room = Math.max(0, budgetBytes - utf8ByteLength(notice))
  return cutToBytes(text, room, direction) + notice
}

function isBlock(value: unknown): value is ModelContentBlock {
  if (typeof value !== 'object' || value === null) return false
  const block = value as { type?: unknown; text?: unknown; mediaType?: unknown }
  if (block.type === 'text') return typeof block.text === 'string'
  return block.type === 'image' && typeof block.mediaType === 'string'
}

function defaultModelContent(output: unknown): ModelContent {
  if (typeof output === 'string') return output
  if (output === null || output === undefined) return ''
  if (Array.isArray(output) && output.every(isBlock)) return output
  // A circular or BigInt output throws here; the pipeline reports it at the serialization stage.
  return JSON.stringify(output, null, 2) ?? ''
}

/** R31: whitespace-only text and block lists with no image and no text count as empty. */
function isEmptyContent(content: ModelContent): boolean {
  if (typeof content === 'string') return content.trim() === ''
  return content.every((block) => block.type === 'text' && block.text.trim() === '')
}

function textOf(blocks: readonly ModelContentBlock[]): string {
  return blocks
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function inlineSerialization(bytes: number): Serialization {
  return { truncated: false, originalBytes: bytes, actualBytes: bytes, strategy: 'inline' }
}

interface ArtifactAttempt {
  readonly ref?: ArtifactRef | undefined
  readonly error?: string | undefined
}

async function tryWrite(input: SerializeInput, content: string | Uint8Array, mediaType: string): Promise<ArtifactAttempt> {
  if (input.artifacts === undefined) return {}
  const retention: Retention = input.entry.retention ?? 'session'
  try {
    const ref = await input.artifacts.write({ sessionId: input.sessionId, callId: input.callId, content, mediaType, retention })
    return { ref }
  } catch (error) {
    return { error: messageOf(error) }
  }
}

function persistedModelText(entry: ToolEntry, text: string, originalBytes: number, ref: ArtifactRef): string {
  const args = { content: text, originalBytes, persistedPath: ref.path, artifactUri: ref.uri }
  return entry.formatPersistedModelContent?.(args) ?? formatPersistedOutputEnvelope(args)
}

function artifactFields(ref: ArtifactRef | undefined): Partial<Serialization> {
  return ref === undefined ? {} : { persistedPath: ref.path, artifactUri: ref.uri }
}

/**
 * R32 for text: inline when it fits; else the artifact envelope when the strategy is
 * `artifact`, a store exists, the write succeeds and the envelope itself fits; else truncation
 * (naming the artifact's path when one was written).
 */
async function serializeText(input: SerializeInput, text: string): Promise<SerializedOutput> {
  const budget = budgetOf(input.entry)
  const budgetBytes = effectiveBudgetBytes(input.entry)
  const originalBytes = utf8ByteLength(text)
  if (originalBytes <= budgetBytes) {
    return { modelContent: text, fullText: text, serialization: inlineSerialization(originalBytes) }
  }
  const attempt = budget.strategy === 'artifact' ? await tryWrite(input, text, 'text/plain') : {}
  const { ref, error } = attempt
  if (ref !== undefined) {
    const envelope = persistedModelText(input.entry, text, originalBytes, ref)
    const actualBytes = utf8ByteLength(envelope)
    if (actualBytes <= budgetBytes) {
      const serialization: Serialization = { truncated: true, strategy: 'artifact', originalBytes, actualBytes, ...artifactFields(ref) }
      return { modelContent: envelope, fullText: text, serialization, artifact: ref }
    }
  }
  const notice = withUnsavedReason(error, formatTruncationNotice({ originalBytes, budgetBytes, strategy: budget.strategy, artifactPath: ref?.path }), budgetBytes)
  const modelText = truncateWithNotice(text, budgetBytes, budget.previewDirection, notice)
  const serialization: Serialization = {
    truncated: true,
    strategy: ref === undefined ? 'truncate' : 'artifact',
    originalBytes,
    actualBytes: utf8ByteLength(modelText),
    ...artifactFields(ref),
  }
  return { modelContent: modelText, fullText: text, serialization, artifact: ref, artifactError: error }
}

interface SavedBlocks {
  readonly blocks: ModelContentBlock[]
  readonly error?: string | undefined
}

/** R36: base64 images become artifact references; without a store or on failure they keep their data. */
async function saveImages(input: SerializeInput, blocks: readonly ModelContentBlock[]): Promise<SavedBlocks> {
  let firstError: string | undefined
  const saved: ModelContentBlock[] = []
  for (const block of blocks) {
    if (block.type !== 'image' || block.data === undefined) {
      saved.push(block)
      continue
    }
    const { ref, error } = await tryWrite(input, Buffer.from(block.data, 'base64'), block.mediaType)
    firstError ??= error
    saved.push(ref === undefined ? block : { type: 'image', mediaType: block.mediaType, artifactUri: ref.uri, path: ref.path })
  }
  return { blocks: saved, error: firstError }
}

/** A text block right after an image is that frame's coordinate reference (R35). */
function isFreeText(blocks: readonly ModelContentBlock[], index: number): boolean {
  return blocks[index]?.type === 'text' && blocks[index - 1]?.type !== 'image'
}

/** Cuts the free text blocks, walking from the kept end, so that they fit `room` bytes together. */
function cutFreeText(blocks: readonly ModelContentBlock[], room: number, direction: CutDirection): ModelContentBlock[] {
  const order = blocks.map((_, index) => index)
  if (direction === 'tail') order.reverse()
  const kept: (ModelContentBlock | undefined)[] = [...blocks]
  let left = room
  for (const index of order) {
    const block = blocks[index]
    if (block?.type !== 'text' || !isFreeText(blocks, index)) continue
    const text = cutToBytes(block.text, left, direction)
    left -= utf8ByteLength(text)
    kept[index] = text === '' ? undefined : { type: 'text', text }
  }
  return kept.filter((block): block is ModelContentBlock => block !== undefined)
}

function freeTextBytes(blocks: readonly ModelContentBlock[]): number {
  let total = 0
  blocks.forEach((block, index) => {
    if (block.type === 'text' && isFreeText(blocks, index)) total += utf8ByteLength(block.text)
  })
  return total
}

/** R35/R36 for blocks: media saved first, frames kept whole, the other text within its budget. */
async function serializeBlocks(input: SerializeInput, blocks: readonly ModelContentBlock[]): Promise<SerializedOutput> {
  const fullText = textOf(blocks)
  const originalBytes = utf8ByteLength(fullText)
  const { blocks: saved, error } = await saveImages(input, blocks)
  const budgetBytes = Math.min(effectiveBudgetBytes(input.entry), SCREENSHOT_TEXT_BUDGET_BYTES)
  if (freeTextBytes(saved) <= budgetBytes) {
    const serialization: Serialization = { ...inlineSerialization(originalBytes), actualBytes: utf8ByteLength(textOf(saved)) }
    return { modelContent: saved, fullText, serialization, artifactError: error }
  }
  const budget = budgetOf(input.entry)
  const notice = formatTruncationNotice({ originalBytes, budgetBytes, strategy: budget.strategy })
  const room = Math.max(0, budgetBytes - utf8ByteLength(notice))
  const cut: ModelContentBlock[] = [...cutFreeText(saved, room, budget.previewDirection), { type: 'text', text: notice }]
  const serialization: Serialization = {
    truncated: true,
    strategy: 'truncate',
    originalBytes,
    actualBytes: utf8ByteLength(textOf(cut)),
  }
  return { modelContent: cut, fullText, serialization, artifactError: error }
}

/** R31-R36: see the module header. */
/**
 * The common case without a promise: a plain text output within budget, no formatter and no
 * streamed artifact. Undefined when the full path is needed.
 */
export function serializeInlineText(input: SerializeInput): SerializedOutput | undefined {
  const { entry, output } = input
  if (typeof output !== 'string' || entry.formatModelContent !== undefined || entry.persistedArtifact !== undefined) return undefined
  if (output.length > effectiveBudgetBytes(entry) || output.trim() === '') return undefined
  const bytes = utf8ByteLength(output)
  if (bytes > effectiveBudgetBytes(entry)) return undefined
  return { modelContent: output, fullText: output, serialization: inlineSerialization(bytes) }
}

export async function serializeOutput(input: SerializeInput): Promise<SerializedOutput> {
  const content = input.entry.formatModelContent?.(input.output) ?? defaultModelContent(input.output)
  if (isEmptyContent(content)) return serializeText(input, `(${input.toolName} completed with no output)`)
  if (typeof content !== 'string') return serializeBlocks(input, content)
  const streamed = input.entry.persistedArtifact?.(input.output)
  return streamed === undefined ? serializeText(input, content) : serializeStreamed(input, content, streamed)
}

/** The tool saved the full output while it ran; the model text is the tool's own preview of it. */
function serializeStreamed(input: SerializeInput, text: string, ref: ArtifactRef): SerializedOutput {
  const budgetBytes = effectiveBudgetBytes(input.entry)
  const textBytes = utf8ByteLength(text)
  const fits = textBytes <= budgetBytes
  const notice = formatTruncationNotice({ originalBytes: ref.bytes, budgetBytes, strategy: 'artifact', artifactPath: ref.path })
  const modelText = fits ? text : truncateWithNotice(text, budgetBytes, budgetOf(input.entry).previewDirection, notice)
  const serialization: Serialization = {
    truncated: true,
    strategy: 'artifact',
    originalBytes: ref.bytes,
    actualBytes: fits ? textBytes : utf8ByteLength(modelText),
    ...artifactFields(ref),
  }
  return { modelContent: modelText, fullText: text, serialization, artifact: ref }
}
