/**
 * openapi.yaml as a contract for replies: finds the operation a request reaches, checks that
 * the status is one it documents and that the body validates against that status's schema
 * ($refs resolved against the document's components), and records what was covered. An object
 * schema that leaves `additionalProperties` open is read as closed: a field the server sends
 * but the document does not name is one no generated client type knows of.
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { expect } from 'vitest'
import { parse } from 'yaml'
import { OPENAPI_YAML_PATH } from '../../scripts/generate-openapi.js'

const DOCUMENT_ID = 'openapi.yaml'
const JSON_MEDIA = 'application/json'

interface Response {
  readonly content?: Record<string, { schema?: unknown }>
}

interface DocumentedOperation {
  readonly operationId: string
  readonly parameters?: ReadonlyArray<{ in: string; name: string }>
  readonly requestBody?: unknown
  readonly responses: Record<string, Response>
}

interface Document {
  readonly paths: Record<string, Record<string, DocumentedOperation>>
}

export interface Operation {
  readonly operationId: string
  readonly method: string
  readonly route: string
  readonly responses: Record<string, Response>
  /** Where its parameters go: `path`, `query`, `header`. */
  readonly parameterPlaces: ReadonlySet<string>
  readonly hasBody: boolean
  readonly pattern: RegExp
  readonly paramCount: number
}

export interface Reply {
  readonly status: number
  readonly contentType: string
  readonly text: string
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  readonly body: unknown
}

export interface RequestOptions {
  readonly body?: unknown
  /** Sent as is, with content-type application/json. */
  readonly rawBody?: string
  readonly headers?: Record<string, string>
}

/** What every error reply is, with nothing more: `{error:{code,message,details?}}`. */
const ERROR_SHAPE = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: { type: 'string', minLength: 1 }, message: { type: 'string', minLength: 1 }, details: {} },
    },
  },
}

export class Contract {
  readonly operations: readonly Operation[]
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true })
  readonly #validators = new Map<string, ValidateFunction>()
  readonly #errorShape: ValidateFunction
  readonly #covered = new Set<string>()

  constructor(document: Document) {
    this.#ajv.addSchema(closedObjects(document), DOCUMENT_ID)
    this.#errorShape = this.#ajv.compile(ERROR_SHAPE)
    this.operations = Object.entries(document.paths).flatMap(([route, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        route,
        responses: operation.responses,
        parameterPlaces: new Set((operation.parameters ?? []).map((parameter) => parameter.in)),
        hasBody: operation.requestBody !== undefined,
        pattern: routePattern(route),
        paramCount: route.split('{').length - 1,
      })),
    )
  }

  static load(): Contract {
    return new Contract(parse(readFileSync(OPENAPI_YAML_PATH, 'utf8')) as Document)
  }

  /** Every documented `operationId status`. */
  documented(): string[] {
    return this.operations.flatMap((operation) => Object.keys(operation.responses).map((status) => `${operation.operationId} ${status}`))
  }

  covered(): string[] {
    return [...this.#covered]
  }

  /** The operation a request reaches: a literal segment wins over a `{param}`, as in the router. */
  operationOf(method: string, url: string): Operation {
    const pathname = new URL(url, 'http://contract.test').pathname
    const matches = this.operations.filter((operation) => operation.method === method && operation.pattern.test(pathname))
    const [operation] = matches.sort((a, b) => a.paramCount - b.paramCount)
    if (operation === undefined) throw new Error(`${method} ${pathname} is no operation of ${DOCUMENT_ID}`)
    return operation
  }

  /** Asserts the reply is one the operation documents, in the documented shape. */
  check(operation: Operation, reply: Reply): void {
    const where = `${operation.operationId} (${operation.method} ${operation.route}) answered ${reply.status}`
    const response = operation.responses[String(reply.status)]
    // Soft: one run lists every reply that breaks the contract, not only the first.
    expect.soft(response, `${where}, a status it does not document: ${reply.text.slice(0, 300)}`).toBeDefined()
    if (response === undefined) return
    this.#covered.add(`${operation.operationId} ${reply.status}`)
    const media = Object.keys(response.content ?? {})
    if (media.length === 0) {
      expect.soft(reply.text, `${where} with a body where it documents none`).toBe('')
      return
    }
    if (!media.includes(JSON_MEDIA)) {
      // text/event-stream or */*: what matters here is that the status and media type are the documented ones.
      expect
        .soft(
          media.some((type) => type === '*/*' || reply.contentType.startsWith(type)),
          `${where} as ${reply.contentType}, documented as ${media.join(', ')}`,
        )
        .toBe(true)
      return
    }
    expect.soft(reply.contentType, `${where} as ${reply.contentType}`).toMatch(/^application\/json\b/)
    const validate = this.#validator(operation, String(reply.status))
    expect.soft(validate(reply.body), `${where} with a body that breaks its schema: ${this.#ajv.errorsText(validate.errors)}\n${reply.text.slice(0, 500)}`).toBe(true)
    if (reply.status >= 400) {
      expect.soft(this.#errorShape(reply.body), `${where} with an error body that is not {error:{code,message,details?}}: ${reply.text.slice(0, 300)}`).toBe(true)
    }
  }

  #validator(operation: Operation, status: string): ValidateFunction {
    const key = `${operation.operationId} ${status}`
    let validate = this.#validators.get(key)
    if (validate === undefined) {
      const pointer = ['paths', operation.route, operation.method.toLowerCase(), 'responses', status, 'content', JSON_MEDIA, 'schema'].map(pointerSegment).join('/')
      validate = this.#ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` })
      this.#validators.set(key, validate)
    }
    return validate
  }
}

function closedObjects<T>(node: T): T
function closedObjects(node: unknown): unknown {
  if (Array.isArray(node)) return (node as unknown[]).map(closedObjects)
  if (typeof node !== 'object' || node === null) return node
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) copy[key] = closedObjects(value)
  if (copy.type === 'object' && copy.properties !== undefined && copy.additionalProperties === undefined) copy.additionalProperties = false
  return copy
}

function routePattern(route: string): RegExp {
  const source = route
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${source}$`)
}

function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))
}

/**
 * One HTTP request on node:http (fetch may not set Host). An event stream is read up to its
 * headers and then dropped: its status and media type are all the contract says of it.
 */
export function send(baseUrl: string, method: string, url: string, options: RequestOptions = {}): Promise<Reply> {
  const target = new URL(url, baseUrl)
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  const headers: Record<string, string> = { ...options.headers }
  if (payload !== undefined) {
    headers['content-type'] ??= JSON_MEDIA
    // node:http sends a DELETE body without a length otherwise, which no server can read.
    headers['content-length'] = String(Buffer.byteLength(payload))
  }
  return new Promise((resolve, reject) => {
    const request = http.request(target, { method, headers, agent: false }, (response) => {
      const contentType = response.headers['content-type'] ?? ''
      if (contentType.startsWith('text/event-stream')) {
        response.destroy()
        resolve({ status: response.statusCode ?? 0, contentType, text: '', body: undefined })
        return
      }
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: response.statusCode ?? 0, contentType, text, body: parseJson(text) })
      })
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end(payload)
  })
}

function parseJson(text: string): unknown {
  try {
    return text.length === 0 ? undefined : JSON.parse(text)
  } catch {
    return undefined
  }
}
