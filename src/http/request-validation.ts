/**
 * @module Request validation at the edge. Query and header values arrive as text: those a
 * route schema types as a number are read as one when they are written as one, and only
 * then (the validator itself coerces nothing, so a JSON body is taken as sent, and ` 5`,
 * `0x10` or `1e3` stay text and fail). A refused value is named in the message, and a value
 * outside a set of choices gets the choices.
 */
import type { FastifyInstance, FastifySchemaValidationError, RouteOptions } from 'fastify'

const WHOLE_NUMBER = /^-?[0-9]+$/
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/

type TextParts = Record<string, unknown>
interface SchemaNode {
  readonly type?: unknown
  readonly properties?: Record<string, SchemaNode>
}

/** Property name -> the pattern that reads it as a number, for the properties a part's schema types as numbers. */
function numericProperties(schema: unknown): Map<string, RegExp> {
  const found = new Map<string, RegExp>()
  const properties = (schema as SchemaNode | undefined)?.properties ?? {}
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'integer') found.set(name, WHOLE_NUMBER)
    else if (property.type === 'number') found.set(name, DECIMAL)
  }
  return found
}

function readNumbers(values: TextParts, numeric: ReadonlyMap<string, RegExp>): void {
  for (const [name, pattern] of numeric) {
    const value = values[name]
    if (typeof value === 'string' && pattern.test(value)) values[name] = Number(value)
  }
}

function readNumbersBeforeValidation(route: RouteOptions): void {
  const schema = route.schema
  const inQuery = numericProperties(schema?.querystring)
  const inHeaders = numericProperties(schema?.headers)
  if (inQuery.size === 0 && inHeaders.size === 0) return
  const existing = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation]
  route.preValidation = [
    function readNumberParameters(request, _reply, done) {
      if (inQuery.size > 0 && typeof request.query === 'object' && request.query !== null) readNumbers(request.query as TextParts, inQuery)
      if (inHeaders.size > 0) readNumbers(request.headers, inHeaders)
      done()
    },
    ...existing,
  ]
}

const listed = (values: readonly unknown[]): string => values.map((value) => JSON.stringify(value)).join(', ')

/** One line per failed place: the choices of an enum or of a union of constants, the name of an unknown property. */
export function formatValidationErrors(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const choices = new Map<string, unknown[]>()
  for (const error of errors) {
    if (error.keyword === 'const') choices.set(error.instancePath, [...(choices.get(error.instancePath) ?? []), error.params.allowedValue])
  }
  const lines: string[] = []
  const said = new Set<string>()
  for (const error of errors) {
    const place = `${dataVar}${error.instancePath}`
    const options = choices.get(error.instancePath) ?? []
    if (options.length > 1 && (error.keyword === 'const' || error.keyword === 'anyOf')) {
      if (!said.has(place)) lines.push(`${place} must be one of ${listed(options)}`)
      said.add(place)
    } else if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues)) lines.push(`${place} must be one of ${listed(error.params.allowedValues)}`)
    else if (error.keyword === 'const') lines.push(`${place} must be ${listed([error.params.allowedValue])}`)
    else if (error.keyword === 'additionalProperties') lines.push(`${place} must NOT have the property ${JSON.stringify(error.params.additionalProperty)}`)
    else lines.push(`${place} ${error.message ?? 'is not valid'}`)
  }
  return new Error(lines.join(', '))
}

export function registerRequestValidation(app: FastifyInstance): void {
  app.addHook('onRoute', readNumbersBeforeValidation)
  app.setSchemaErrorFormatter(formatValidationErrors)
}
