import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { describe, expect, it } from 'vitest'
import { formatValidationError } from '../../src/executor/errors.js'
import { toInputSchema } from '../../src/tools/json-input-schema.js'

const object = (properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}) => ({ type: 'object', properties, required, ...extra })

describe('plain JSON Schema as a TypeBox input schema', () => {
  it.each([
    ['a required string', object({ a: { type: 'string' } }, ['a']), { a: 'x' }, true],
    ['a missing required property', object({ a: { type: 'string' } }, ['a']), {}, false],
    ['an optional property left out', object({ a: { type: 'string' } }), {}, true],
    ['minLength', object({ a: { type: 'string', minLength: 2 } }), { a: 'x' }, false],
    ['a pattern', object({ a: { type: 'string', pattern: '^[a-z]+$' } }), { a: 'A1' }, false],
    ['an integer given a fraction', object({ n: { type: 'integer' } }), { n: 1.5 }, false],
    ['a number range', object({ n: { type: 'number', minimum: 0, maximum: 1 } }), { n: 2 }, false],
    ['an enum member', object({ e: { enum: ['a', 'b'] } }), { e: 'b' }, true],
    ['an enum outsider', object({ e: { enum: ['a', 'b'] } }), { e: 'c' }, false],
    ['a const', object({ c: { const: 3 } }), { c: 3 }, true],
    ['a type list with null', object({ t: { type: ['string', 'null'] } }), { t: null }, true],
    ['a type list refusing a number', object({ t: { type: ['string', 'null'] } }), { t: 1 }, false],
    ['anyOf', object({ u: { anyOf: [{ type: 'string' }, { type: 'boolean' }] } }), { u: true }, true],
    ['oneOf read as anyOf', object({ u: { oneOf: [{ type: 'string' }, { type: 'boolean' }] } }), { u: 1 }, false],
    [
      'allOf',
      object({
        i: {
          allOf: [
            { type: 'number', minimum: 1 },
            { type: 'number', maximum: 2 },
          ],
        },
      }),
      { i: 3 },
      false,
    ],
    ['array items', object({ l: { type: 'array', items: { type: 'string' } } }), { l: ['a', 2] }, false],
    ['maxItems', object({ l: { type: 'array', maxItems: 1 } }), { l: [1, 2] }, false],
    ['additionalProperties false', object({}, [], { additionalProperties: false }), { x: 1 }, false],
    ['additionalProperties as a schema', object({}, [], { additionalProperties: { type: 'number' } }), { x: 'y' }, false],
    ['nested objects', object({ o: object({ z: { type: 'boolean' } }, ['z']) }), { o: {} }, false],
    ['an unknown format, left to the tool', object({ d: { type: 'string', format: 'made-up' } }), { d: 'anything' }, true],
    ['a $ref, left to the tool', object({ r: { $ref: '#/$defs/x' } }, [], { $defs: { x: { type: 'string' } } }), { r: 5 }, true],
    ['an invalid pattern, left to the tool', object({ a: { type: 'string', pattern: '([' } }), { a: 'x' }, true],
    ['false as a schema', object({ never: false }), { never: 1 }, false],
    ['properties without a type', { properties: { a: { type: 'string' } }, required: ['a'] }, {}, false],
  ])('checks %s', (_, json, value, valid) => {
    expect(TypeCompiler.Compile(toInputSchema(json)).Check(value)).toBe(valid)
  })

  it('A4 gives the model the same validation messages as the equivalent TypeBox schema', () => {
    const json = toInputSchema(object({ q: { type: 'string' }, n: { type: 'integer' } }, ['q'], { additionalProperties: false }))
    const typebox = Type.Object({ q: Type.String(), n: Type.Optional(Type.Integer()) }, { additionalProperties: false })
    const input = { n: 'x', z: 1 }
    const message = formatValidationError('T', json, input)
    expect(message).toBe(formatValidationError('T', typebox, input))
    expect(message).toContain('The required parameter `q` is missing')
    expect(message).toContain('The parameter `n` type is expected as `integer` but provided as `string`')
    expect(message).toContain('An unexpected parameter `z` was provided')
  })

  it('serializes back to the schema exactly as declared', () => {
    const json = object({ d: { type: 'string', format: 'date-time', description: 'when' }, r: { $ref: '#/$defs/x' } }, ['d'], { $defs: { x: { type: 'string' } } })
    expect(JSON.parse(JSON.stringify({ inputSchema: toInputSchema(json) }))).toEqual({ inputSchema: json })
  })
})
