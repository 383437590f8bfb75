import { readFile } from 'node:fs/promises'
import { Validator } from '@seriousme/openapi-schema-validator'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { buildOpenApiDocument, OPENAPI_TYPES_PATH, OPENAPI_YAML_PATH, renderOpenApiTypes, renderOpenApiYaml } from '../../scripts/generate-openapi.js'
import { DOCS_CSP } from '../../src/http/docs.js'
import { startTestServer } from '../support/server.js'

interface Operation {
  readonly operationId?: string
  readonly tags?: string[]
  readonly security?: Array<Record<string, string[]>>
  readonly responses: Record<string, { content?: Record<string, unknown> }>
}
type PathItem = Record<string, Operation>
interface Document {
  readonly openapi: string
  readonly security: Array<Record<string, string[]>>
  readonly tags: Array<{ name: string }>
  readonly paths: Record<string, PathItem>
  readonly components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> }
}

const STALE = 'is out of date: run `npm run openapi` and commit the result'

const OPERATIONS = [
  ['post', '/sessions', 'createSession'],
  ['get', '/sessions/{id}', 'getSession'],
  ['post', '/sessions/{id}/abort', 'abortSession'],
  ['get', '/sessions/{id}/history', 'getHistory'],
  ['post', '/schedules', 'createSchedule'],
  ['post', '/schedules/{id}/calls', 'addScheduleCall'],
  ['post', '/schedules/{id}/close', 'closeSchedule'],
  ['get', '/schedules/{id}', 'getSchedule'],
  ['post', '/permissions/{id}', 'answerPermission'],
  ['get', '/permissions', 'listPermissions'],
  ['get', '/sessions/{id}/events', 'streamEvents'],
  ['get', '/artifacts/{sessionId}/{artifactId}', 'getArtifact'],
  ['get', '/tools', 'listTools'],
  ['get', '/healthz', 'health'],
] as const

let generated: Record<string, unknown>
let committed: Document

beforeAll(async () => {
  generated = await buildOpenApiDocument()
  committed = parse(await readFile(OPENAPI_YAML_PATH, 'utf8')) as Document
}, 30_000)

function operations(document: Document): Array<[string, string, Operation]> {
  return Object.entries(document.paths).flatMap(([route, item]) => Object.entries(item).map(([method, op]): [string, string, Operation] => [method, route, op]))
}

function refsIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, found)
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value)
      else refsIn(value, found)
    }
  }
  return found
}

describe('openapi.yaml and the generated client types', () => {
  it('openapi.yaml is byte for byte what the route schemas produce', async () => {
    const onDisk = await readFile(OPENAPI_YAML_PATH, 'utf8')
    expect(onDisk, `openapi.yaml ${STALE}`).toBe(renderOpenApiYaml(generated))
  })

  it('test/generated/openapi.d.ts is byte for byte what openapi-typescript makes of the same document', async () => {
    const onDisk = await readFile(OPENAPI_TYPES_PATH, 'utf8')
    expect(onDisk, `test/generated/openapi.d.ts ${STALE}`).toBe(await renderOpenApiTypes(generated))
  })

  it('the document validates as OpenAPI 3.1 and every $ref resolves', async () => {
    const validator = new Validator()
    // A copy: resolving the refs replaces them in place.
    const verdict = await validator.validate(structuredClone(committed) as unknown as Record<string, unknown>)
    expect(verdict.errors).toBeUndefined()
    expect(verdict.valid).toBe(true)
    expect(validator.version).toBe('3.1')
    expect(() => validator.resolveRefs()).not.toThrow()
  })

  it('shared contract schemas are components, each one referenced', () => {
    const refs = [...new Set(refsIn(committed))]
    expect(Object.keys(committed.components.schemas)).toEqual(
      expect.arrayContaining([
        'ErrorReply',
        'Session',
        'CreateScheduleBody',
        'ScheduleAccepted',
        'Schedule',
        'CallRecord',
        'ToolExecutionResult',
        'PermissionRequestRecord',
        'HistoryEntry',
        'ToolInfo',
      ]),
    )
    for (const name of Object.keys(committed.components.schemas)) expect(refs, name).toContain(`#/components/schemas/${name}`)
    for (const ref of refs) expect(committed.components.schemas, ref).toHaveProperty([ref.replace('#/components/schemas/', '')])
  })

  it.each(OPERATIONS)('%s %s has the operationId %s', (method, route, operationId) => {
    expect(committed.paths[route]?.[method]?.operationId).toBe(operationId)
  })

  it('every operation has its own operationId and a tag from the tag list', () => {
    const found = operations(committed)
    const ids = found.map(([, , op]) => op.operationId)
    expect(
      ids.every((id) => typeof id === 'string' && id.length > 0),
      'an operation without operationId',
    ).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    const tags = committed.tags.map((tag) => tag.name)
    for (const [method, route, op] of found) {
      expect(op.tags, `${method} ${route}`).toHaveLength(1)
      expect(tags).toContain(op.tags?.[0])
    }
  })

  it('every operation but health and the protected resource metadata requires the bearer token and documents its 401', () => {
    expect(committed.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(committed.security).toEqual([{ bearer: [] }])
    for (const [method, route, op] of operations(committed)) {
      if (route === '/healthz' || route === '/.well-known/oauth-protected-resource') {
        expect(op.security).toEqual([])
        expect(op.responses['401']).toBeUndefined()
      } else {
        expect(op.responses['401'], `${method} ${route}`).toBeDefined()
      }
    }
  })

  it('the events route is a text/event-stream that also takes the token as ?access_token=', () => {
    const events = committed.paths['/sessions/{id}/events']?.get
    expect(Object.keys(events?.responses['200']?.content ?? {})).toEqual(['text/event-stream'])
    expect(events?.security).toEqual([{ bearer: ['events:read'] }, { accessToken: ['events:read'] }])
    expect(committed.components.securitySchemes.accessToken).toEqual(expect.objectContaining({ type: 'apiKey', in: 'query', name: 'access_token' }))
  })

  it('the reference at /docs, its scripts and its OAuth page may load from their own origin only, and no page may frame them', async () => {
    const server = await startTestServer()
    try {
      for (const route of ['/docs', '/docs/', '/docs/static/swagger-ui-bundle.js', '/docs/static/oauth2-redirect.html', '/docs/json']) {
        const reply = await fetch(`${server.url}${route}`)
        expect(reply.status, route).toBe(200)
        const csp = reply.headers.get('content-security-policy') ?? ''
        expect(csp, route).toBe(DOCS_CSP)
        expect(csp, route).toContain("frame-ancestors 'none'")
        expect(csp, route).toContain("script-src 'self'")
        expect(csp, route).not.toMatch(/unsafe-inline|unsafe-eval|https?:/)
        expect(reply.headers.get('x-frame-options'), route).toBe('DENY')
        expect(reply.headers.get('x-content-type-options'), route).toBe('nosniff')
        expect(reply.headers.get('referrer-policy'), route).toBe('no-referrer')
      }
    } finally {
      await server.close()
    }
  })

  it('a server running with a token serves the same document at /openapi.json', async () => {
    const server = await startTestServer({ env: { TOOLEXEC_TOKEN: 'openapi-secret' } })
    try {
      const reply = await fetch(`${server.url}/openapi.json`, { headers: { authorization: 'Bearer openapi-secret' } })
      expect(reply.status).toBe(200)
      expect(await reply.json()).toEqual(committed)
    } finally {
      await server.close()
    }
  })
})
