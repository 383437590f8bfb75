/**
 * @module Input schemas that arrive as plain JSON Schema (MCP servers, HTTP tools) made
 * checkable by TypeBox, so the executor validates them like any tool's and the model gets
 * the same A4 messages. Each node is wrapped with `Type.Unsafe` under the TypeBox kind that
 * checks the same keywords; what TypeBox cannot check (`$ref`, `format`, `not`, ...) is left
 * to the tool itself and accepted here.
 */
import { Kind, Type, type TSchema } from '@sinclair/typebox'

type Node = Readonly<Record<string, unknown>>

const MAX_DEPTH = 32
const ANNOTATIONS = ['title', 'description', 'default', 'examples'] as const
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const
const LENGTH_KEYWORDS = ['minLength', 'maxLength'] as const
const ITEM_COUNT_KEYWORDS = ['minItems', 'maxItems'] as const
const PROPERTY_COUNT_KEYWORDS = ['minProperties', 'maxProperties'] as const

/**
 * A TypeBox schema that checks `json`, serialized back (GET /tools) as `json` itself.
 * @example toInputSchema({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] })
 */
export function toInputSchema(json: unknown): TSchema {
  const schema = convert(json, 0)
  // Listings must show the schema as declared, not the checkable subset built here.
  Object.defineProperty(schema, 'toJSON', { value: () => json, enumerable: false })
  return schema
}

function convert(json: unknown, depth: number): TSchema {
  if (json === false) return Type.Never()
  if (!isNode(json) || depth > MAX_DEPTH) return Type.Unknown()
  if (Array.isArray(json['enum'])) return enumOf(json, json['enum'])
  if ('const' in json) return literalOf(json['const'], annotations(json))
  const variants = json['anyOf'] ?? json['oneOf']
  if (Array.isArray(variants)) return kinded('Union', json, { anyOf: variants.map((item) => convert(item, depth + 1)) })
  if (Array.isArray(json['allOf'])) return kinded('Intersect', json, { allOf: json['allOf'].map((item) => convert(item, depth + 1)) })
  const type = json['type']
  if (Array.isArray(type)) return kinded('Union', json, { anyOf: type.map((item: unknown) => convert({ ...json, type: item }, depth + 1)) })
  return typed(json, typeof type === 'string' ? type : impliedType(json), depth)
}

function typed(json: Node, type: string | undefined, depth: number): TSchema {
  switch (type) {
    case 'string':
      return kinded('String', json, { type, ...numbers(json, LENGTH_KEYWORDS), ...patternOf(json) })
    case 'number':
      return kinded('Number', json, { type, ...numbers(json, NUMBER_KEYWORDS) })
    case 'integer':
      return kinded('Integer', json, { type, ...numbers(json, NUMBER_KEYWORDS) })
    case 'boolean':
      return kinded('Boolean', json, { type })
    case 'null':
      return kinded('Null', json, { type })
    case 'array':
      return kinded('Array', json, { type, items: convert(json['items'], depth + 1), ...numbers(json, ITEM_COUNT_KEYWORDS), ...uniqueItems(json) })
    case 'object':
      return objectOf(json, depth)
    default:
      return kinded('Unknown', json, {})
  }
}

function objectOf(json: Node, depth: number): TSchema {
  const properties: Record<string, TSchema> = {}
  const declared = isNode(json['properties']) ? json['properties'] : {}
  for (const [key, value] of Object.entries(declared)) properties[key] = convert(value, depth + 1)
  const required = Array.isArray(json['required']) ? json['required'].filter((key): key is string => typeof key === 'string') : []
  const extra = json['additionalProperties']
  return kinded('Object', json, {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : null),
    ...(typeof extra === 'boolean' ? { additionalProperties: extra } : isNode(extra) ? { additionalProperties: convert(extra, depth + 1) } : null),
    ...numbers(json, PROPERTY_COUNT_KEYWORDS),
  })
}

function enumOf(json: Node, values: readonly unknown[]): TSchema {
  const literals = values.map((value) => literalOf(value, {}))
  if (literals.length === 1 && literals[0] !== undefined) return Type.Unsafe({ ...literals[0], ...annotations(json) })
  return kinded('Union', json, { anyOf: literals })
}

function literalOf(value: unknown, extra: Node): TSchema {
  if (value === null) return Type.Null(extra)
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return Type.Literal(value, extra)
  return Type.Unknown(extra)
}

/** JSON Schema lets `type` be implied by the keywords present. */
function impliedType(json: Node): string | undefined {
  if ('properties' in json || 'required' in json || 'additionalProperties' in json) return 'object'
  if ('items' in json) return 'array'
  return undefined
}

function kinded(kind: string, json: Node, keywords: Record<string, unknown>): TSchema {
  return Type.Unsafe({ ...annotations(json), ...keywords, [Kind]: kind })
}

function annotations(json: Node): Record<string, unknown> {
  const kept: Record<string, unknown> = {}
  for (const key of ANNOTATIONS) if (key in json) kept[key] = json[key]
  return kept
}

function numbers(json: Node, keys: readonly string[]): Record<string, number> {
  const kept: Record<string, number> = {}
  for (const key of keys) {
    const value = json[key]
    if (typeof value === 'number' && Number.isFinite(value)) kept[key] = value
  }
  return kept
}

/** TypeBox compiles `pattern` without flags; one that does not compile is not checked. */
function patternOf(json: Node): { pattern?: string } {
  const pattern = json['pattern']
  if (typeof pattern !== 'string') return {}
  try {
    new RegExp(pattern)
    return { pattern }
  } catch {
    return {}
  }
}

function uniqueItems(json: Node): { uniqueItems?: true } {
  return json['uniqueItems'] === true ? { uniqueItems: true } : {}
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
