/**
 * @module The OpenAPI document: its options, and the final touches @fastify/swagger cannot
 * make. Route schemas are inlined for the validator (see schema.ts), so the contract schemas
 * that carry an `$id` are found again by shape and become `components/schemas` with `$ref`s;
 * the routes and their validation stay as they are.
 */
import { STATUS_CODES } from 'node:http'
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import * as access from '../contracts/access.js'
import * as api from '../contracts/api.js'
import * as apiKeys from '../contracts/api-keys.js'
import * as apiErrors from '../contracts/api-errors.js'
import * as caller from '../contracts/caller.js'
import * as display from '../contracts/display.js'
import * as events from '../contracts/events.js'
import * as flags from '../contracts/flags.js'
import * as modelContent from '../contracts/model-content.js'
import * as modelFormats from '../contracts/model-formats.js'
import * as result from '../contracts/result.js'
import * as sandbox from '../contracts/sandbox.js'
import * as sessionEvents from '../contracts/session-events.js'
import * as toolCall from '../contracts/tool-call.js'
import * as toolConfig from '../contracts/tool-config.js'
import * as toolEntry from '../contracts/tool-entry.js'
import { BODY_LIMIT_BYTES } from './json-body.js'
import { REQUEST_EXAMPLES } from './openapi-examples.js'

type Json = null | boolean | number | string | Json[] | JsonObject
interface JsonObject {
  [key: string]: Json
}

export const OPENAPI_INFO = {
  title: 'toolexec',
  description: "Executes AI agents' tool calls: scheduling, approval, timeouts, budgets, events.",
  version: '0.1.0',
}

const TAGS = [
  { name: 'sessions', description: 'A session holds the workspace, the permission mode and the ordered history of tool calls' },
  { name: 'schedules', description: 'The tool calls of one model reply, grouped and run; streamed calls start early (R11)' },
  { name: 'permissions', description: 'Approval requests: list the pending ones, answer each once' },
  { name: 'events', description: "Each session's durable, numbered event stream over Server-Sent Events" },
  { name: 'artifacts', description: 'Bytes a result saved aside (large outputs, images)' },
  { name: 'tools', description: 'The registered tools' },
  { name: 'keys', description: 'API keys: scopes or a role, limits to sessions or workspaces, an expiry; revoked at once' },
  { name: 'audit', description: 'The audit log: who decided approvals, minted or revoked keys, removed rules and tools, deleted sessions; chained by hash' },
  { name: 'health', description: 'Liveness; never needs a token' },
]

const SERVERS = [
  { url: '/', description: 'The server that serves this document (at /openapi.json and /docs)' },
  {
    url: 'http://127.0.0.1:{port}',
    description: 'A server on this machine with the default HOST',
    variables: { port: { default: '8787', description: 'PORT' } },
  },
]

const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'TOOLEXEC_TOKEN (every scope), an API key (`txk_...`, POST /keys) or, with TOOLEXEC_JWT_ISSUER, a JWT of that identity provider (scopes from its `scope` claim; see /.well-known/oauth-protected-resource) holding the scope each operation lists: required on every route but /healthz, /openapi.json, /docs and /.well-known/oauth-protected-resource when the server runs with a token',
  },
  accessToken: {
    type: 'apiKey',
    in: 'query',
    name: 'access_token',
    description: "TOOLEXEC_TOKEN or an API key in the query, for the events route only: a browser's EventSource cannot send headers",
  },
} as const

const SCHEMAS_REF = '#/components/schemas/'
const BODY_METHODS: ReadonlySet<string> = new Set(['post', 'put', 'patch', 'delete'])
const ERROR_REPLY = 'ErrorReply'
const BODY_LIMIT_TEXT = `${BODY_LIMIT_BYTES / (1024 * 1024)} MiB`
const UNAUTHORIZED = 'Missing or wrong bearer token (only when the server runs with TOOLEXEC_TOKEN); the WWW-Authenticate header says why (RFC 6750)'
const NOT_LOCAL =
  'Only when the server runs without TOOLEXEC_TOKEN: the Host is not a loopback name (localhost, 127.x.x.x or [::1]; `API_ERR_HOST_NOT_LOOPBACK`), or a web page on another site sent the request (an Origin neither loopback nor in TOOLEXEC_CORS_ORIGINS, or Sec-Fetch-Site: cross-site; `API_ERR_ORIGIN_NOT_ALLOWED`)'
// Where schemas with an `$id` live; one used by a route but missing here stays inline.
const CONTRACT_MODULES: readonly object[] = [
  access,
  api,
  apiErrors,
  apiKeys,
  caller,
  display,
  events,
  flags,
  modelContent,
  modelFormats,
  result,
  sandbox,
  sessionEvents,
  toolCall,
  toolConfig,
  toolEntry,
]

export function swaggerOptions(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: OPENAPI_INFO,
      servers: SERVERS,
      tags: TAGS,
      security: [{ bearer: [] }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transformObject: function finishOpenapi(document) {
      if (!('openapiObject' in document)) return document.swaggerObject
      return finishDocument(document.openapiObject as unknown as JsonObject)
    },
  }
}

/** Hoists the named contract schemas into components, names responses, documents 400s, 401s and 403s. */
export function finishDocument(document: JsonObject): JsonObject {
  const named = namedContractSchemas()
  const components = new Map<string, Json>()
  const paths = hoist(document.paths ?? {}, named, components, false)
  if (isObject(paths)) describeResponses(paths, document.security ?? [], components, named)
  if (isObject(paths)) addRequestExamples(paths)
  const schemas = isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {}
  for (const [name, schema] of components) schemas[name] = schema
  mapDiscriminators(schemas)
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((name) => [name, schemas[name] ?? {}]),
  )
  return { ...document, components: { ...(isObject(document.components) ? document.components : {}), schemas: sorted }, paths }
}

/** Canonical shape -> `$id`, for every contract schema that has one. */
function namedContractSchemas(): Map<string, string> {
  const named = new Map<string, string>()
  for (const module of CONTRACT_MODULES) {
    for (const value of Object.values(module)) {
      if (!isObject(value) || typeof value.$id !== 'string') continue
      const shape = canonical(documentForm(value))
      if (shape !== '{}' && !named.has(shape)) named.set(shape, value.$id)
    }
  }
  return named
}

/**
 * A union discriminated by a property gets the mapping from each value to its schema: the
 * schemas are named for the value plus a suffix (ToolCallResult -> ToolCallResultEvent),
 * so a generator cannot guess it from the name.
 */
function mapDiscriminators(schemas: JsonObject): void {
  for (const schema of Object.values(schemas)) {
    if (!isObject(schema) || !isObject(schema.discriminator) || typeof schema.discriminator.propertyName !== 'string') continue
    const property = schema.discriminator.propertyName
    const mapping: JsonObject = {}
    for (const member of Array.isArray(schema.anyOf) ? schema.anyOf : []) {
      const ref = isObject(member) && typeof member.$ref === 'string' ? member.$ref : undefined
      const target = ref === undefined ? undefined : schemas[ref.slice(SCHEMAS_REF.length)]
      const values = isObject(target) && isObject(target.properties) && isObject(target.properties[property]) ? target.properties[property].enum : undefined
      if (ref === undefined || !Array.isArray(values) || values.length !== 1 || typeof values[0] !== 'string') {
        throw new Error(`a member of a union discriminated by ${property} is not a named schema with one ${property}`)
      }
      mapping[values[0]] = ref
    }
    schema.discriminator = { propertyName: property, mapping }
  }
}

function hoist(node: Json, named: Map<string, string>, components: Map<string, Json>, mayReplace: boolean): Json {
  if (Array.isArray(node)) return node.map((item) => hoist(item, named, components, true))
  if (!isObject(node)) return node
  const name = mayReplace ? named.get(canonical(node)) : undefined
  if (name !== undefined) {
    if (!components.has(name)) {
      components.set(name, {})
      components.set(name, hoist(node, named, components, false))
    }
    return { $ref: SCHEMAS_REF + name }
  }
  const copy: JsonObject = {}
  for (const [key, value] of Object.entries(node)) copy[key] = hoist(value, named, components, true)
  return copy
}

function describeResponses(paths: JsonObject, globalSecurity: Json, components: Map<string, Json>, named: Map<string, string>): void {
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue
      const responses = operation.responses
      for (const [status, response] of Object.entries(responses)) {
        if (isObject(response) && response.description === 'Default Response') response.description = status === '401' ? UNAUTHORIZED : (STATUS_CODES[status] ?? status)
      }
      // Fastify refuses a parameter or body that breaks its schema, or cannot be decoded, before the route runs.
      if (takesInput(method, operation)) {
        responses['400'] ??= { description: STATUS_CODES['400'] ?? '400', content: { 'application/json': { schema: errorReplyRef(components, named) } } }
      }
      // Fastify refuses a body over the limit, or of a media type other than JSON, before the route runs.
      if (BODY_METHODS.has(method)) {
        responses['413'] ??= { description: `${STATUS_CODES['413'] ?? '413'}: a body over ${BODY_LIMIT_TEXT}`, content: { 'application/json': { schema: errorReplyRef(components, named) } } }
        responses['415'] ??= { description: `${STATUS_CODES['415'] ?? '415'}: a body that is not application/json`, content: { 'application/json': { schema: errorReplyRef(components, named) } } }
      }
      const security = operation.security ?? globalSecurity
      if (Array.isArray(security) && security.length > 0 && responses['401'] === undefined) {
        responses['401'] = { description: UNAUTHORIZED, content: { 'application/json': { schema: errorReplyRef(components, named) } } }
      }
      // Without a token every route answers only loopback Host names (DNS rebinding) and pages of loopback or listed origins.
      const scope = scopeOf(security)
      const description = scope === undefined ? NOT_LOCAL : `${forbiddenWithout(scope)} ${NOT_LOCAL}`
      responses['403'] ??= { description, content: { 'application/json': { schema: errorReplyRef(components, named) } } }
    }
  }
}

/** The scope an operation's `security` names (route-scopes.ts gives every guarded operation one). */
function scopeOf(security: Json): string | undefined {
  const first = Array.isArray(security) ? security[0] : undefined
  const scopes = isObject(first) ? first.bearer : undefined
  return Array.isArray(scopes) && typeof scopes[0] === 'string' ? scopes[0] : undefined
}

function forbiddenWithout(scope: string): string {
  return `With a token: the key lacks the scope \`${scope}\` (\`API_ERR_FORBIDDEN\`), or would reach outside the sessions or workspaces it is limited to.`
}

/** Each operation's example: a value on every parameter it names, and the body as the JSON request's example. */
function addRequestExamples(paths: JsonObject): void {
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue
    for (const operation of Object.values(item)) {
      const example = isObject(operation) && typeof operation.operationId === 'string' ? REQUEST_EXAMPLES[operation.operationId] : undefined
      if (!isObject(operation) || example === undefined) continue
      for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
        const value = isObject(parameter) && typeof parameter.name === 'string' ? example.parameters?.[parameter.name] : undefined
        if (isObject(parameter) && value !== undefined) parameter.example = value as Json
      }
      const media = isObject(operation.requestBody) && isObject(operation.requestBody.content) ? operation.requestBody.content['application/json'] : undefined
      if (isObject(media) && example.body !== undefined) media.examples = { walkthrough: { summary: example.summary, value: example.body as Json } }
    }
  }
}

/** Path, query or header parameters, or a method whose body is parsed (one that is not JSON is a 400). */
function takesInput(method: string, operation: JsonObject): boolean {
  const parameters = operation.parameters
  if (Array.isArray(parameters) && parameters.length > 0) return true
  return operation.requestBody !== undefined || BODY_METHODS.has(method)
}

function errorReplyRef(components: Map<string, Json>, named: Map<string, string>): Json {
  if (!components.has(ERROR_REPLY)) components.set(ERROR_REPLY, hoist(documentForm(api.ErrorReplySchema), named, components, false))
  return { $ref: SCHEMAS_REF + ERROR_REPLY }
}

/** A TypeBox schema as @fastify/swagger writes it: no `$id`, `const` as `enum`, records as additionalProperties. */
function documentForm(schema: unknown): Json {
  const plain = JSON.parse(JSON.stringify(schema)) as Json
  return convert(plain)
}

function convert(node: Json): Json {
  if (Array.isArray(node)) return node.map(convert)
  if (!isObject(node)) return node
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id' || key === '$schema') continue
    if (key === 'const') out.enum = [value]
    else if (key === 'patternProperties' && isObject(value)) out.additionalProperties = convert(Object.values(value)[0] ?? {})
    else out[key] = convert(value)
  }
  return out
}

/** JSON with sorted keys: two schemas with the same content give the same string. */
function canonical(node: Json): string {
  if (Array.isArray(node)) return `[${node.map(canonical).join(',')}]`
  if (!isObject(node)) return JSON.stringify(node)
  const keys = Object.keys(node).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(node[key] ?? null)}`).join(',')}}`
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
