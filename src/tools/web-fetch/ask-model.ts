/**
 * @module WebFetch's prompt path: the page and the prompt go to the model the executor handed
 * over (already wrapped by the admission gate, R22) and its answer is the result.
 */
import type { ModelClient, ModelRequest } from '../../contracts/ports.js'
import { cutHeadToBytes, utf8ByteLength } from '../../output/bytes.js'

/** Enough of a page for an answer; a model's context is finite and the rest is rarely needed. */
export const MAX_PAGE_BYTES_FOR_MODEL = 100_000

const SYSTEM_PROMPT =
  'You answer a request about one web page. Use only the page content you are given. ' +
  'Be concise. Quote exact text only when the request asks for it, and say so when the page does not contain the answer.'

export interface PageQuestion {
  readonly url: string
  readonly page: string
  readonly prompt: string
}

/** The page, cut to MAX_PAGE_BYTES_FOR_MODEL by whole characters, with a note when it was cut. */
export function pageForModel(page: string): string {
  const bytes = utf8ByteLength(page)
  if (bytes <= MAX_PAGE_BYTES_FOR_MODEL) return page
  return `${cutHeadToBytes(page, MAX_PAGE_BYTES_FOR_MODEL)}\n\n[Page cut to its first ${MAX_PAGE_BYTES_FOR_MODEL} of ${bytes} bytes]`
}

export function buildPageRequest(question: PageQuestion): ModelRequest {
  const user = `Web page: ${question.url}\n\n<page>\n${pageForModel(question.page)}\n</page>\n\nRequest: ${question.prompt}`
  return {
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: user },
    ],
  }
}

export async function answerFromPage(model: ModelClient, question: PageQuestion, signal: AbortSignal): Promise<string> {
  const response = await model.complete(buildPageRequest(question), signal)
  return response.text
}
