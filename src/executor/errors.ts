/**
 * @module Failure results and the texts the model sees for them (R25, R26, A4).
 * One builder makes every failed result; everything else here turns an error or an
 * invalid input into a short, stable text.
 */
import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'
import type { CallStatus, ErrorClass, ErrorStage, Perf, PermissionOutcome, ResultError, ToolExecutionResult } from '../contracts/result.js'
import type { ToolBusinessFailure } from '../contracts/tool-entry.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../contracts/json-depth.js'

export interface ErrorResultInput {
  readonly callId: string
  readonly toolName: string
  /** failed | denied | cancelled | timed_out | interrupted */
  readonly status: CallStatus
  readonly stage: ErrorStage
  readonly errorClass: ErrorClass
  /** The UI message. */
  readonly message: string
  /**
   * What the model sees. Only A4's texts (validation, business failure, empty name) set it;
   * every other failure reaches the model as its message projected (R26).
   */
  readonly modelContent?: string | undefined
  readonly code?: string | undefined
  readonly context?: Record<string, unknown> | undefined
  readonly perf?: Partial<Perf> | undefined
  readonly permission?: PermissionOutcome | undefined
  readonly output?: unknown
}

const MAX_CAUSE_DEPTH = 12
const MAX_MESSAGE_CHARS = 500
const CUT_MESSAGE_CHARS = 497
const UNKNOWN_ERROR = 'Unknown error'
const ROOT_PARAMETER = '(root)'

// ---------------------------------------------------------------- R25

/** R25: the one builder of `success: false` results. Absent optional keys are omitted. */
export function createErrorResult(input: ErrorResultInput): ToolExecutionResult {
  const modelContent = input.modelContent ?? projectMessage(input.message)
  const bytes = Buffer.byteLength(modelContent, 'utf8')
  return {
    callId: input.callId,
    toolName: input.toolName,
    success: false,
    status: input.status,
    isError: true,
    modelContent,
    ...(input.output === undefined ? null : { output: input.output }),
    error: buildResultError(input),
    serialization: { truncated: false, originalBytes: bytes, actualBytes: bytes, strategy: 'inline' },
    perf: {
      totalMs: input.perf?.totalMs ?? 0,
      permissionWaitMs: input.perf?.permissionWaitMs ?? 0,
      queuedMs: input.perf?.queuedMs ?? 0,
    },
    permission: input.permission ?? 'none',
    hookContext: [],
  }
}

function buildResultError(input: ErrorResultInput): ResultError {
  return {
    message: input.message,
    stage: input.stage,
    errorClass: input.errorClass,
    ...(input.code === undefined ? null : { code: input.code }),
    ...(input.context === undefined ? null : { context: input.context }),
  }
}

// ---------------------------------------------------------------- R26 projection

/**
 * R26: the first non-wrapper message along `cause` (or AggregateError `errors[0]`), at most
 * 12 levels deep counting the error itself, whitespace folded, cut at 500 characters.
 */
export function projectErrorMessage(error: unknown): string {
  try {
    let current = error
    for (let level = 0; level < MAX_CAUSE_DEPTH && current != null; level++) {
      const message = ownMessage(current)
      if (message !== undefined) return clipMessage(message)
      current = nextLevel(current)
    }
  } catch {
    // A throwing getter or proxy must not turn a failure report into a second failure.
  }
  return UNKNOWN_ERROR
}

/**
 * R26 for a text that already is the message (a deny message, a rule's or a hook's reason):
 * whitespace runs folded to one space, ends trimmed, cut at 500 characters.
 */
export function projectMessage(text: string): string {
  return clipMessage(foldWhitespace(text))
}

/** A reason with nothing but whitespace says nothing: the caller's default applies. */
export function meaningfulReason(reason: string | undefined): string | undefined {
  return reason === undefined || foldWhitespace(reason) === '' ? undefined : reason
}

/** The folded message of one level, or undefined when that level is a wrapper. */
function ownMessage(value: unknown): string | undefined {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    return nonEmpty(foldWhitespace(String(value)))
  }
  const record = value as { message?: unknown; wrapper?: unknown }
  // Without a message, a thrown object's own toString, if it has one, is the best text it has.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  if (typeof record.message !== 'string') return nonEmpty(foldWhitespace(String(value)))
  if (record.wrapper === true || aggregatedErrors(value) !== undefined) return undefined
  return nonEmpty(foldWhitespace(record.message))
}

function nextLevel(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return undefined
  return aggregatedErrors(value)?.[0] ?? (value as { cause?: unknown }).cause
}

function aggregatedErrors(value: object): readonly unknown[] | undefined {
  if (!(value instanceof AggregateError)) return undefined
  const errors: unknown = value.errors
  return Array.isArray(errors) && errors.length > 0 ? errors : undefined
}

function nonEmpty(text: string): string | undefined {
  return text === '' ? undefined : text
}

function foldWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** Cuts by code points so a surrogate pair is never split. */
function clipMessage(text: string): string {
  // UTF-16 length bounds the code point count: short strings skip the array.
  if (text.length <= MAX_MESSAGE_CHARS) return text
  const codePoints = Array.from(text)
  if (codePoints.length <= MAX_MESSAGE_CHARS) return text
  return `${codePoints.slice(0, CUT_MESSAGE_CHARS).join('')}...`
}

// ---------------------------------------------------------------- A4 small texts

export function toolUseError(message: string): string {
  return `<tool_use_error>${message}</tool_use_error>`
}

/** A4: `{result: false, message, errorCode?}` returned by a handler as a value. */
export function isBusinessFailure(value: unknown): value is ToolBusinessFailure {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as { result?: unknown; message?: unknown; errorCode?: unknown }
  return candidate.result === false && typeof candidate.message === 'string' && (candidate.errorCode === undefined || typeof candidate.errorCode === 'string')
}

/** A short class name for spans and logs: `code`, else constructor name, else typeof. */
export function errorClassOf(error: unknown): string {
  if (error === null) return 'null'
  if (typeof error !== 'object') return typeof error
  const code: unknown = (error as { code?: unknown }).code
  if (typeof code === 'string' && code !== '') return code
  const name: unknown = (error as { constructor?: { name?: unknown } }).constructor?.name
  return typeof name === 'string' && name !== '' ? name : typeof error
}

// ---------------------------------------------------------------- A4 validation

type IssueKind = 'missing' | 'unexpected' | 'type' | 'invalid'

interface Issue {
  readonly path: string
  readonly kind: IssueKind
  readonly line: string
}

/** Higher wins when TypeBox reports one parameter more than once. */
const ISSUE_RANK: Readonly<Record<IssueKind, number>> = { missing: 3, unexpected: 2, type: 1, invalid: 0 }

// Runs on every call: compile each schema once, and only walk errors for invalid input.
const compiledSchemas = new WeakMap<TSchema, TypeCheck<TSchema>>()

function compiled(schema: TSchema): TypeCheck<TSchema> {
  let check = compiledSchemas.get(schema)
  if (check === undefined) {
    check = TypeCompiler.Compile(schema)
    compiledSchemas.set(schema, check)
  }
  return check
}

/** A4: the model-facing text for an input that fails its schema; undefined when valid. */
export function formatValidationError(toolName: string, schema: TSchema, input: unknown): string | undefined {
  const failure = describeValidationFailure(toolName, schema, input)
  return failure === undefined ? undefined : toolUseError(failure)
}

/**
 * R13 and R26: a PreToolUse hook's updatedInput that fails the schema is not the model's first
 * validation failure, so the model gets the projected message, not the A4 text.
 */
export function projectedValidationError(toolName: string, schema: TSchema, input: unknown): string | undefined {
  const failure = describeValidationFailure(toolName, schema, input)
  return failure === undefined ? undefined : projectMessage(`The PreToolUse hook's updatedInput is invalid: ${failure}`)
}

function describeValidationFailure(toolName: string, schema: TSchema, input: unknown): string | undefined {
  if (compiled(schema).Check(input)) return undefined
  const issues = collectIssues(Value.Errors(schema, input))
  if (issues.length === 0) return undefined
  const noun = issues.length === 1 ? 'issue' : 'issues'
  const lines = issues.map((issue) => issue.line).join('\n')
  return `InputValidationError: ${toolName} failed due to the following ${noun}:\n${lines}`
}

function collectIssues(errors: Iterable<ValueError>): Issue[] {
  const byPath = new Map<string, Issue>()
  for (const issue of issuesOf(errors)) {
    const seen = byPath.get(issue.path)
    if (seen === undefined || ISSUE_RANK[issue.kind] > ISSUE_RANK[seen.kind]) byPath.set(issue.path, issue)
  }
  const issues = [...byPath.values()]
  // A generic complaint about a parent adds nothing once a child says what is wrong.
  return issues.filter((issue) => issue.kind !== 'invalid' || !issues.some((other) => isBelow(other.path, issue.path)))
}

function* issuesOf(errors: Iterable<ValueError>): Generator<Issue> {
  for (const error of errors) {
    const variant = error.type === ValueErrorType.Union ? matchingVariantErrors(error) : undefined
    const narrowed = variant === undefined ? [] : [...issuesOf(variant)]
    if (narrowed.length === 0) yield classify(error)
    else yield* narrowed
  }
}

/** The errors of the one union member whose JSON type fits the value, if exactly one does. */
function matchingVariantErrors(error: ValueError): Iterable<ValueError> | undefined {
  const variants: unknown = error.schema['anyOf']
  if (!Array.isArray(variants)) return undefined
  const fitting = variants.flatMap((variant: TSchema, index) => (fitsType(variant, error.value) ? [index] : []))
  return fitting.length === 1 ? error.errors[fitting[0] ?? 0] : undefined
}

function classify(error: ValueError): Issue {
  const path = dottedPath(error.path)
  if (error.type === ValueErrorType.ObjectRequiredProperty) {
    return { path, kind: 'missing', line: `The required parameter \`${path}\` is missing` }
  }
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    return { path, kind: 'unexpected', line: `An unexpected parameter \`${path}\` was provided` }
  }
  const expected = expectedTypes(error.schema)
  if (path === ROOT_PARAMETER && expected?.includes('object') === true && typeof error.value === 'string') {
    return { path, kind: 'type', line: stringForObjectLine(error.value) }
  }
  if (expected !== undefined && !fitsTypes(expected, error.value)) {
    const line = `The parameter \`${path}\` type is expected as \`${expected.join(' | ')}\` but provided as \`${jsonTypeOf(error.value)}\``
    return { path, kind: 'type', line }
  }
  return { path, kind: 'invalid', line: `The parameter \`${path}\` is invalid: ${error.message}` }
}

/**
 * The input is a text where an object belongs: most often a function call's `arguments` that
 * are not JSON (a model cut short or writing by hand), so the model is told what the parser saw.
 */
function stringForObjectLine(text: string): string {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return `The input is expected as a JSON object but provided as JSON text that nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels: send the arguments again nested less deeply`
  }
  try {
    JSON.parse(text)
    return 'The input is expected as a JSON object but provided as a string holding JSON text: give the object itself, not a string'
  } catch (error) {
    return `The input is expected as a JSON object but provided as text that is not valid JSON (${projectErrorMessage(error)}): send the arguments again as one JSON object`
  }
}

/** The JSON types a schema accepts, or undefined when it does not say. */
function expectedTypes(schema: TSchema): string[] | undefined {
  const type: unknown = schema['type']
  if (typeof type === 'string') return [type]
  if (Array.isArray(type) && type.every((item) => typeof item === 'string')) return type
  const variants: unknown = schema['anyOf']
  if (!Array.isArray(variants)) return undefined
  const all = new Set<string>()
  for (const variant of variants as TSchema[]) {
    const types = expectedTypes(variant)
    if (types === undefined) return undefined
    for (const item of types) all.add(item)
  }
  return [...all]
}

function fitsType(schema: TSchema, value: unknown): boolean {
  const expected = expectedTypes(schema)
  return expected === undefined || fitsTypes(expected, value)
}

function fitsTypes(expected: readonly string[], value: unknown): boolean {
  const actual = jsonTypeOf(value)
  return expected.includes(actual) || (actual === 'number' && Number.isInteger(value) && expected.includes('integer'))
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** JSON Pointer (`/items/0`) to the dotted form the model reads (`items.0`). */
function dottedPath(pointer: string): string {
  if (pointer === '') return ROOT_PARAMETER
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.')
}

function isBelow(path: string, ancestor: string): boolean {
  return ancestor === ROOT_PARAMETER ? path !== ROOT_PARAMETER : path.startsWith(`${ancestor}.`)
}
