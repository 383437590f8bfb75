/** Validating events against the contract (src/contracts/session-events.ts), as a client's validator would. */
import { Ajv, type ValidateFunction } from 'ajv'
import { SessionEventSchema } from '../../src/contracts/session-events.js'

/** The schema with every event type closed: a field the contract does not name is a finding. */
export function closedUnion(): unknown {
  const union = structuredClone(SessionEventSchema) as { anyOf: Array<Record<string, unknown>> }
  for (const member of union.anyOf) member.additionalProperties = false
  return union
}

export function validator(schema: unknown): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true })
  // An OpenAPI annotation for generators; the union is checked member by member.
  ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' })
  return ajv.compile(schema as object)
}
