import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { describe, expect, it } from 'vitest'
import { ToolexecError } from '../../src/contracts/errors.js'
import { ToolExecutionResultSchema, type CallStatus, type ErrorClass, type ErrorStage } from '../../src/contracts/result.js'
import { createErrorResult, errorClassOf, formatValidationError, isBusinessFailure, projectErrorMessage, toolUseError } from '../../src/executor/errors.js'

/** Builds error -> cause -> ... from the outside in; '' makes an empty-message wrapper. */
function causeChain(messages: readonly string[]): Error {
  let cause: Error | undefined
  for (const message of [...messages].reverse()) cause = new Error(message, cause === undefined ? undefined : { cause })
  if (cause === undefined) throw new Error('empty chain')
  return cause
}

function wrappers(count: number): string[] {
  return Array.from({ length: count }, () => '')
}

describe('projectErrorMessage', () => {
  it('R26 reaches a message on the 12th level of the cause chain', () => {
    expect(projectErrorMessage(causeChain([...wrappers(11), 'level twelve']))).toBe('level twelve')
  })

  it('R26 stops at 12 levels: a 13th-level message is not reached and the result is Unknown error', () => {
    expect(projectErrorMessage(causeChain([...wrappers(12), 'level thirteen']))).toBe('Unknown error')
  })

  it('R26 takes the outermost message of a 13-level chain when it is not a wrapper', () => {
    const chain = causeChain(Array.from({ length: 13 }, (_, index) => `level ${index + 1}`))
    expect(projectErrorMessage(chain)).toBe('level 1')
  })

  it('R26 ends a cyclic chain of wrappers with Unknown error', () => {
    const error = new Error(' ')
    ;(error as { cause?: unknown }).cause = error
    expect(projectErrorMessage(error)).toBe('Unknown error')
  })

  it.each([
    ['an empty message', new Error('', { cause: new Error('disk full') })],
    ['a whitespace-only message', new Error(' \n\t ', { cause: new Error('disk full') })],
    ['a wrapper flag', Object.assign(new Error('wrapped call failed'), { wrapper: true, cause: new Error('disk full') })],
    ['an AggregateError', new AggregateError([new Error('disk full'), new Error('second')], 'All promises were rejected')],
    ['a nested AggregateError', new Error('', { cause: new AggregateError([new Error('', { cause: 'disk full' })], 'agg') })],
    ['a coded error around it', new ToolexecError('EXEC_ERR_HANDLER', [''], { cause: new Error('disk full') })],
  ])('R26 skips %s to the first real message', (_label, error) => {
    expect(projectErrorMessage(error)).toBe('disk full')
  })

  it('R26 keeps the message of an AggregateError that has no errors', () => {
    expect(projectErrorMessage(new AggregateError([], 'nothing settled'))).toBe('nothing settled')
  })

  it.each([
    ['a string', 'plain failure', 'plain failure'],
    ['an object with a message', { message: 'from an object', cause: 'ignored' }, 'from an object'],
    ['an object with an empty message and a cause', { message: '', cause: { message: 'inner' } }, 'inner'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'Unknown error'],
    ['null', null, 'Unknown error'],
    ['an empty string', '   ', 'Unknown error'],
  ])('R26 projects %s', (_label, value, expected) => {
    expect(projectErrorMessage(value)).toBe(expected)
  })

  it('R26 survives an error whose message getter throws', () => {
    const hostile = Object.defineProperty(new Error('x'), 'message', {
      get() {
        throw new Error('boom')
      },
    })
    expect(projectErrorMessage(hostile)).toBe('Unknown error')
  })

  it('R26 folds tabs, newlines and space runs into single spaces and trims', () => {
    expect(projectErrorMessage(new Error('\n\tfirst line\r\n\n  second\t\tline  \n'))).toBe('first line second line')
  })

  it.each([
    ['exactly 500 characters stays', 'a'.repeat(500), 'a'.repeat(500)],
    ['501 characters becomes 497 plus ...', 'a'.repeat(501), `${'a'.repeat(497)}...`],
    ['500 emoji (1000 UTF-16 units) stays', '😀'.repeat(500), '😀'.repeat(500)],
    ['an emoji at the cut stays whole', `${'a'.repeat(496)}😀${'b'.repeat(10)}`, `${'a'.repeat(496)}😀...`],
    ['an emoji just after the cut is dropped whole', `${'a'.repeat(497)}😀${'b'.repeat(10)}`, `${'a'.repeat(497)}...`],
  ])('R26 cut: %s', (_label, message, expected) => {
    const projected = projectErrorMessage(new Error(message))
    expect(projected).toBe(expected)
    expect(projected).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
  })

  it('R26 cuts after folding whitespace, not before', () => {
    expect(projectErrorMessage(new Error(`${'a '.repeat(250)}\n\n\n`))).toBe(`${'a '.repeat(249)}a`)
  })
})

describe('formatValidationError (A4)', () => {
  const ReadInput = Type.Object({ file_path: Type.String(), offset: Type.Optional(Type.Number()), limit: Type.Optional(Type.Integer()) }, { additionalProperties: false })
  const NestedInput = Type.Object({
    options: Type.Object({ depth: Type.Integer() }),
    items: Type.Array(Type.String()),
  })

  it.each([
    ['a valid input', { file_path: '/tmp/a' }],
    ['a valid input with optional fields', { file_path: '/tmp/a', offset: 1.5, limit: 10 }],
  ])('A4 returns undefined for %s', (_label, input) => {
    expect(formatValidationError('Read', ReadInput, input)).toBeUndefined()
  })

  it.each([
    ['a missing required parameter (and no type error for it)', ReadInput, { offset: 1 }, 'The required parameter `file_path` is missing'],
    ['an unexpected parameter', ReadInput, { file_path: 'a', mode: 'r' }, 'An unexpected parameter `mode` was provided'],
    ['a number given for a string', ReadInput, { file_path: 5 }, 'The parameter `file_path` type is expected as `string` but provided as `number`'],
    ['null given for a string', ReadInput, { file_path: null }, 'The parameter `file_path` type is expected as `string` but provided as `null`'],
    ['a fractional number given for an integer', ReadInput, { file_path: 'a', limit: 1.5 }, 'The parameter `limit` type is expected as `integer` but provided as `number`'],
    ['an array given for an object', NestedInput, { options: [], items: [] }, 'The parameter `options` type is expected as `object` but provided as `array`'],
    ['a nested parameter by dotted path', NestedInput, { options: { depth: 'deep' }, items: [] }, 'The parameter `options.depth` type is expected as `integer` but provided as `string`'],
    ['an array item by index', NestedInput, { options: { depth: 1 }, items: ['a', true] }, 'The parameter `items.1` type is expected as `string` but provided as `boolean`'],
    [
      'a union with no member of the value type',
      Type.Object({ id: Type.Union([Type.String(), Type.Number()]) }),
      { id: false },
      'The parameter `id` type is expected as `string | number` but provided as `boolean`',
    ],
    ['a constraint other than the type', Type.Object({ name: Type.String({ minLength: 3 }) }), { name: 'ab' }, 'The parameter `name` is invalid: Expected string length greater or equal to 3'],
    [
      'a literal of the right type but wrong value',
      Type.Object({ mode: Type.Union([Type.Literal('read'), Type.Literal('write')]) }),
      { mode: 'append' },
      'The parameter `mode` is invalid: Expected union value',
    ],
    ['a key containing a slash', Type.Object({ 'a/b': Type.String() }), { 'a/b': 1 }, 'The parameter `a/b` type is expected as `string` but provided as `number`'],
    ['a non-object input', ReadInput, null, 'The parameter `(root)` type is expected as `object` but provided as `null`'],
  ])('A4 reports %s byte for byte', (_label, schema, input, line) => {
    expect(formatValidationError('Read', schema, input)).toBe(`<tool_use_error>InputValidationError: Read failed due to the following issue:\n${line}</tool_use_error>`)
  })

  it('A4 lists several issues under the plural heading, one line each, in schema order', () => {
    expect(formatValidationError('Read', ReadInput, { mode: 'r', offset: '10', limit: null })).toBe(
      [
        '<tool_use_error>InputValidationError: Read failed due to the following issues:',
        'The required parameter `file_path` is missing',
        'An unexpected parameter `mode` was provided',
        'The parameter `offset` type is expected as `number` but provided as `string`',
        'The parameter `limit` type is expected as `integer` but provided as `null`</tool_use_error>',
      ].join('\n'),
    )
  })

  it('A4 looks inside the one union member that fits, instead of reporting the whole union', () => {
    const schema = Type.Object({
      filter: Type.Union([Type.Object({ tag: Type.String() }, { additionalProperties: false }), Type.Null()]),
    })
    expect(formatValidationError('Search', schema, { filter: { tag: 7, extra: true } })).toBe(
      [
        '<tool_use_error>InputValidationError: Search failed due to the following issues:',
        'An unexpected parameter `filter.extra` was provided',
        'The parameter `filter.tag` type is expected as `string` but provided as `number`</tool_use_error>',
      ].join('\n'),
    )
  })

  it('A4 gives the same answer for a schema seen before (compiled once and cached)', () => {
    const first = formatValidationError('Read', ReadInput, { file_path: 1 })
    expect(formatValidationError('Read', ReadInput, { file_path: 1 })).toBe(first)
    expect(formatValidationError('Read', ReadInput, { file_path: 'ok' })).toBeUndefined()
  })
})

describe('createErrorResult', () => {
  const cases: ReadonlyArray<[CallStatus, ErrorStage, ErrorClass, string]> = [
    ['failed', 'handler', 'exception', 'ENOENT: no such file'],
    ['denied', 'permission', 'permission_denied', 'Permission denied for Bash'],
    ['cancelled', 'handler', 'cancelled', 'Tool execution cancelled'],
    ['timed_out', 'handler', 'timeout', 'Tool execution timed out after 5000ms'],
    ['interrupted', 'handler', 'interrupted', 'Interrupted by user'],
  ]

  it.each(cases)('R25 builds a %s result that validates against ToolExecutionResultSchema', (status, stage, errorClass, message) => {
    const result = createErrorResult({ callId: 'c1', toolName: 'Bash', status, stage, errorClass, message })
    expect(Value.Check(ToolExecutionResultSchema, result)).toBe(true)
    expect(result).toStrictEqual({
      callId: 'c1',
      toolName: 'Bash',
      success: false,
      status,
      isError: true,
      modelContent: message,
      error: { message, stage, errorClass },
      serialization: {
        truncated: false,
        originalBytes: Buffer.byteLength(message),
        actualBytes: Buffer.byteLength(message),
        strategy: 'inline',
      },
      perf: { totalMs: 0, permissionWaitMs: 0, queuedMs: 0 },
      permission: 'none',
      hookContext: [],
    })
  })

  it('R25 gives every minimal result the same keys in the same order, with no undefined-valued key', () => {
    const shapes = cases.map(([status, stage, errorClass, message]) => {
      const result = createErrorResult({ callId: 'c', toolName: 'T', status, stage, errorClass, message, code: undefined })
      expect(Object.values(result).some((value) => value === undefined)).toBe(false)
      expect(Object.values(result.error ?? {}).some((value) => value === undefined)).toBe(false)
      return Object.keys(result).join(',')
    })
    expect(new Set(shapes).size).toBe(1)
  })

  it('R26 gives the model the projected message when no model text is given, and keeps the UI message whole', () => {
    const message = `\n\tHold on:\n\n\tthe release\t\tis frozen ${'😀'.repeat(600)}  \n`
    const result = createErrorResult({ callId: 'c', toolName: 'Deploy', status: 'denied', stage: 'permission', errorClass: 'permission_denied', message })
    expect(result.modelContent).toBe(`Hold on: the release is frozen ${'😀'.repeat(497 - 'Hold on: the release is frozen '.length)}...`)
    expect(result.error?.message).toBe(message)
    expect(result.serialization.actualBytes).toBe(Buffer.byteLength(result.modelContent as string))
  })

  it('R25 measures modelContent in UTF-8 bytes and lets it differ from the UI message', () => {
    const modelContent = toolUseError('Fichier déjà ouvert 😀')
    const result = createErrorResult({
      callId: 'c2',
      toolName: 'Write',
      status: 'failed',
      stage: 'handler',
      errorClass: 'business',
      message: 'Fichier déjà ouvert 😀',
      modelContent,
      code: 'EXEC_ERR_BUSINESS',
      context: { errorCode: 'LOCKED' },
      perf: { totalMs: 12 },
      permission: 'approved',
      output: { result: false, message: 'Fichier déjà ouvert 😀' },
    })
    expect(Value.Check(ToolExecutionResultSchema, result)).toBe(true)
    expect(result.modelContent).toBe('<tool_use_error>Fichier déjà ouvert 😀</tool_use_error>')
    expect(result.serialization.originalBytes).toBe(59) // 16 + 26 + 17 bytes; .length would say 56
    expect(result.serialization.actualBytes).toBe(59)
    expect(result.error).toStrictEqual({
      message: 'Fichier déjà ouvert 😀',
      stage: 'handler',
      errorClass: 'business',
      code: 'EXEC_ERR_BUSINESS',
      context: { errorCode: 'LOCKED' },
    })
    expect(result.perf).toStrictEqual({ totalMs: 12, permissionWaitMs: 0, queuedMs: 0 })
    expect(result.permission).toBe('approved')
    expect(result.output).toStrictEqual({ result: false, message: 'Fichier déjà ouvert 😀' })
  })
})

describe('small A4 helpers', () => {
  it('A4 wraps a message in tool_use_error tags', () => {
    expect(toolUseError('Error: No such tool available: ')).toBe('<tool_use_error>Error: No such tool available: </tool_use_error>')
  })

  it.each([
    [{ result: false, message: 'not found' }, true],
    [{ result: false, message: 'not found', errorCode: 'E1' }, true],
    [{ result: false, message: 'x', errorCode: 3 }, false],
    [{ result: false }, false],
    [{ result: 'false', message: 'x' }, false],
    [{ result: true, message: 'x' }, false],
    [null, false],
    ['false', false],
  ])('A4 isBusinessFailure(%j) is %s', (value, expected) => {
    expect(isBusinessFailure(value)).toBe(expected)
  })

  it.each([
    [new ToolexecError('EXEC_ERR_CANCELLED'), 'EXEC_ERR_CANCELLED'],
    [Object.assign(new Error('x'), { code: 'ENOENT' }), 'ENOENT'],
    [Object.assign(new Error('x'), { code: 5 }), 'Error'],
    [new TypeError('x'), 'TypeError'],
    [new AggregateError([]), 'AggregateError'],
    [{ message: 'x' }, 'Object'],
    [Object.create(null) as object, 'object'],
    ['text', 'string'],
    [undefined, 'undefined'],
    [null, 'null'],
  ])('R26 errorClassOf(%s) is %s', (error, expected) => {
    expect(errorClassOf(error)).toBe(expected)
  })
})
