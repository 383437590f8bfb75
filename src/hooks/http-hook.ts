/** @module An HTTP hook: the hook input POSTed as JSON; a 2xx JSON reply is the answer. */
import type { HttpHookConfig } from '../contracts/hook-config.js'
import type { HookEventName, HookOutput, HookPayload } from '../contracts/ports.js'
import { DEFAULT_HOOK_TIMEOUT_MS, HookError } from './command-hook.js'
import { hookInput } from './hook-input.js'
import { normalizeHookOutput } from './hook-output.js'

const MAX_REPLY_BYTES = 1024 * 1024

export async function runHttpHook(config: HttpHookConfig, event: HookEventName, payload: HookPayload, signal: AbortSignal): Promise<HookOutput | undefined> {
  // Loaded at the first HTTP hook, not by every start; before the clock starts.
  const { request } = await import('undici')
  const timeoutMs = config.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  const timeout = AbortSignal.timeout(timeoutMs)
  let response
  let text: string
  // The timeout covers the reply's body too: a server may send its headers and then stall.
  try {
    response = await request(config.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...config.headers },
      body: JSON.stringify(hookInput(payload)),
      signal: AbortSignal.any([signal, timeout]),
    })
    text = await readLimited(response.body)
  } catch (error) {
    if (timeout.aborted) throw new HookError(`Hook timed out after ${timeoutMs}ms`, true)
    if (error instanceof HookError) throw error
    throw new HookError(`Hook request failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (response.statusCode < 200 || response.statusCode >= 300) throw new HookError(`Hook answered HTTP ${response.statusCode}: ${text.slice(0, 200)}`)
  if (text.trim().length === 0) return undefined
  try {
    return normalizeHookOutput(event, JSON.parse(text))
  } catch {
    throw new HookError(`Hook answered invalid JSON: ${text.slice(0, 200)}`)
  }
}

async function readLimited(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.length
    if (size > MAX_REPLY_BYTES) throw new HookError(`Hook reply is larger than ${MAX_REPLY_BYTES} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}
