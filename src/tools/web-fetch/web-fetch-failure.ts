/** @module The failures of a fetch that the model should read as a tool_use_error (R26). */
import type { ToolBusinessFailure } from '../../contracts/tool-entry.js'

export type WebFetchErrorCode =
  | 'TOOL_ERR_WEBFETCH_INVALID_URL'
  | 'TOOL_ERR_WEBFETCH_BLOCKED_ADDRESS'
  | 'TOOL_ERR_WEBFETCH_TOO_MANY_REDIRECTS'
  | 'TOOL_ERR_WEBFETCH_HTTP_STATUS'
  | 'TOOL_ERR_WEBFETCH_TOO_LARGE'
  | 'TOOL_ERR_WEBFETCH_UNSUPPORTED_CONTENT'

export class WebFetchFailure extends Error {
  readonly code: WebFetchErrorCode

  constructor(code: WebFetchErrorCode, message: string) {
    super(message)
    this.name = 'WebFetchFailure'
    this.code = code
  }
}

const MAX_CAUSE_DEPTH = 8

/**
 * The failure inside `error` (a WebFetchFailure, or a refused address that surfaced from the
 * socket's DNS lookup, possibly wrapped in a `cause`), as a business failure.
 */
export function asBusinessFailure(error: unknown): ToolBusinessFailure | undefined {
  let current = error
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown }
    if (typeof code === 'string' && code.startsWith('TOOL_ERR_WEBFETCH_') && typeof message === 'string') {
      return { result: false, errorCode: code, message }
    }
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
