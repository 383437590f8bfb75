/** @module JSON requests through inject() under a bearer of the test's choosing: the tests of keys, links, approvals and the audit log. */
import { inject } from './running-session.js'
import type { TestServer } from './server.js'

export interface KeyedReply<T> {
  readonly status: number
  /** The parsed body; `{}` when there is none. */
  readonly body: T & { error?: { code: string; message: string; details?: unknown } }
  readonly text: string
}

export type KeyedJson = <T = unknown>(method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<KeyedReply<T>>

export const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` })

/** `json(method, url, body?, headers?)` against the server `current()` gives, under `defaults` when no headers are given. */
export function keyedJson(current: () => TestServer, defaults: Record<string, string>): KeyedJson {
  return async <T>(method: string, url: string, body?: unknown, headers: Record<string, string> = defaults): Promise<KeyedReply<T>> => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const reply = await inject(current(), {
      method: method as 'GET',
      url,
      headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload }),
    })
    return { status: reply.statusCode, body: (reply.body.length > 0 ? reply.json() : {}) as KeyedReply<T>['body'], text: reply.body }
  }
}
