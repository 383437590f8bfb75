/**
 * @module Route schemas from the contracts, inlined: a nested `$id` would make the
 * validator see one id twice in a reply that embeds a schema in two places.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { ErrorReplySchema } from '../contracts/api.js'

export function inline<T extends TSchema>(schema: T): T {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value))) as T
}

export const ERROR = inline(ErrorReplySchema)

/** Error replies a route documents, by status. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const replies: Record<number, TSchema> = {}
  for (const status of statuses) replies[status] = ERROR
  return replies
}

export const SessionIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) })
