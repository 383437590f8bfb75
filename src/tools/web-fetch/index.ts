/**
 * @module WebFetch {url, prompt?}: fetches a page (SPEC A1: T/F/T/network, parallel, 60000 ms,
 * 100000 bytes to an artifact with a head preview). HTML becomes Markdown; with a prompt and
 * a model the model's answer about the page is the result, else the page itself.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { ToolCallContext } from '../../contracts/ports.js'
import { defineTool, type ToolBusinessFailure, type ToolEntry } from '../../contracts/tool-entry.js'
import { DEFAULT_WEB_FETCH } from '../services.js'
import { answerFromPage } from './ask-model.js'
import type { FetchedPage } from './fetch-page.js'
import { essenceOf, pageText, type PageText } from './page-content.js'
import { asBusinessFailure } from './web-fetch-failure.js'

export const WEB_FETCH_TOOL_NAME = 'WebFetch'

const WebFetchInputSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, description: 'The http or https URL to fetch' }),
    prompt: Type.Optional(Type.String({ description: 'What to find out from the page; answered by the configured model' })),
  },
  { additionalProperties: false },
)
export type WebFetchInput = Static<typeof WebFetchInputSchema>

export interface WebFetchOutput {
  readonly url: string
  readonly finalUrl: string
  readonly statusCode: number
  readonly contentType: string
  /** Bytes of the body as received. */
  readonly bytes: number
  /** True when `text` is the model's answer to the prompt rather than the page. */
  readonly answeredByModel: boolean
  readonly text: string
}

export interface WebFetchToolOptions {
  /** Origins (`https://wiki.internal`) fetched even when they resolve to a private address. */
  readonly trustedOrigins?: readonly string[] | undefined
}

const DESCRIPTION =
  'Fetches an http(s) URL and returns its content: HTML as Markdown, text and JSON as they are. ' +
  'With `prompt`, a model reads the page and answers the prompt instead. Redirects are followed; ' +
  'private, loopback and link-local addresses are refused unless the server allows them.'

export function noModelNote(format: PageText['format']): string {
  const what = format === 'markdown' ? 'the page as Markdown' : 'the page as text'
  return `(No model is configured to answer the prompt; ${what} follows.)`
}

async function resultText(input: WebFetchInput, ctx: ToolCallContext, page: FetchedPage, content: PageText): Promise<string> {
  if (input.prompt === undefined) return content.text
  if (ctx.model === undefined) return `${noModelNote(content.format)}\n\n${content.text}`
  return answerFromPage(ctx.model, { url: page.finalUrl, page: content.text, prompt: input.prompt }, ctx.signal)
}

function unsupportedContent(page: FetchedPage): ToolBusinessFailure {
  const message = `${page.finalUrl} returned ${essenceOf(page.contentType)} content, which WebFetch cannot read: it reads HTML, text and JSON`
  return { result: false, errorCode: 'TOOL_ERR_WEBFETCH_UNSUPPORTED_CONTENT', message }
}

async function fetchOrFail(input: WebFetchInput, ctx: ToolCallContext, trustedOrigins: ReadonlySet<string>): Promise<FetchedPage | ToolBusinessFailure> {
  try {
    // undici is loaded at the first fetch, not by every start.
    const { fetchPage } = await import('./fetch-page.js')
    return await fetchPage(input.url, { signal: ctx.signal, settings: ctx.services.webFetch ?? DEFAULT_WEB_FETCH, trustedOrigins })
  } catch (error) {
    const failure = asBusinessFailure(error)
    if (failure !== undefined) return failure
    throw error
  }
}

function originsOf(urls: readonly string[] | undefined): ReadonlySet<string> {
  return new Set((urls ?? []).map((url) => new URL(url).origin))
}

/**
 * @example registry.register(createWebFetchTool())
 * @see SPEC R4, R22, A1
 */
export function createWebFetchTool(options: WebFetchToolOptions = {}): ToolEntry<WebFetchInput, WebFetchOutput> {
  const trustedOrigins = originsOf(options.trustedOrigins)
  return defineTool({
    name: WEB_FETCH_TOOL_NAME,
    accessTarget: (input) => ({ kind: 'url', url: input.url }),
    description: DESCRIPTION,
    inputSchema: WebFetchInputSchema,
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'network' },
    timeout: { kind: 'deadline', defaultMs: 60_000, allowCallOverride: false },
    resultBudget: { maxModelBytes: 100_000, maxInlineBytes: 100_000, strategy: 'artifact', previewDirection: 'head' },
    retention: 'session',
    formatModelContent: (output: WebFetchOutput) => output.text,
    handler: async function webFetch(input, ctx): Promise<WebFetchOutput | ToolBusinessFailure> {
      const page = await fetchOrFail(input, ctx, trustedOrigins)
      if ('result' in page) return page
      const content = await pageText(page.contentType, page.body, ctx.signal)
      if (content === undefined) return unsupportedContent(page)
      const text = await resultText(input, ctx, page, content)
      return {
        url: input.url,
        finalUrl: page.finalUrl,
        statusCode: page.statusCode,
        contentType: essenceOf(page.contentType),
        bytes: page.body.length,
        answeredByModel: input.prompt !== undefined && ctx.model !== undefined,
        text,
      }
    },
  })
}
