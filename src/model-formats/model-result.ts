/**
 * @module What the result adapters take: a call's id, its modelContent with every image's
 * bytes at hand, and R28's error flag. They change the shape, never the text.
 */
export interface ResolvedText {
  readonly type: 'text'
  readonly text: string
}

export interface ResolvedImage {
  readonly type: 'image'
  readonly mediaType: string
  /** base64 */
  readonly data: string
}

export type ResolvedBlock = ResolvedText | ResolvedImage
export type ResolvedContent = string | readonly ResolvedBlock[]

export interface ModelResult {
  readonly id: string
  readonly content: ResolvedContent
  readonly isError: boolean
}

export function dataUrl(image: ResolvedImage): string {
  return `data:${image.mediaType};base64,${image.data}`
}

export function textsOf(blocks: readonly ResolvedBlock[]): ResolvedText[] {
  return blocks.filter((block): block is ResolvedText => block.type === 'text')
}

export function imagesOf(blocks: readonly ResolvedBlock[]): ResolvedImage[] {
  return blocks.filter((block): block is ResolvedImage => block.type === 'image')
}
