/**
 * What openapi.yaml tells a client beyond the route shapes: the events, the error codes, the
 * servers, the numeric parameters, an example for every request; and the Redocly linter's
 * recommended rules find no error in it.
 */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { API_ERROR_CODES } from '../../src/contracts/api-errors.js'
import { SESSION_EVENT_TYPES } from '../../src/contracts/session-events.js'
import { statusOf } from '../../src/http/error-status.js'
import { OPENAPI_YAML_PATH, REPO_ROOT } from '../../scripts/generate-openapi.js'

const run = promisify(execFile)

/** The parts of the document these tests read. */
interface Schema {
  readonly $ref?: string
  readonly enum?: unknown[]
  readonly description?: string
  readonly pattern?: string
  readonly properties?: Record<string, Schema>
  readonly required?: string[]
  readonly anyOf?: Schema[]
  readonly discriminator?: { readonly propertyName: string; readonly mapping: Record<string, string> }
}
interface Parameter {
  readonly name: string
  readonly in: string
  readonly example?: unknown
  readonly schema?: Schema
}
interface Operation {
  readonly description?: string
  readonly parameters?: Parameter[]
  readonly responses?: Record<string, { readonly content: Record<string, { readonly schema: Schema }> }>
  readonly requestBody?: { readonly content?: Record<string, { readonly examples?: Record<string, { readonly value?: unknown }> }> }
}
interface OpenApiDocument {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, Schema> }
  readonly servers: Array<{ readonly url: string }>
}
let document: OpenApiDocument

beforeAll(async () => {
  document = parse(await readFile(OPENAPI_YAML_PATH, 'utf8')) as OpenApiDocument
})

function operations(): Array<[string, Operation]> {
  return Object.entries(document.paths).flatMap(([route, item]) => Object.entries(item).map(([method, op]): [string, Operation] => [`${method} ${route}`, op]))
}

describe('openapi.yaml for a client', () => {
  it('documents the event stream as SessionEvent frames, one named schema per event type, discriminated by type', () => {
    const events = document.paths['/sessions/{id}/events']?.get
    expect(events?.responses?.['200']?.content['text/event-stream']?.schema).toEqual({ $ref: '#/components/schemas/SessionEvent' })
    const union = document.components.schemas.SessionEvent
    expect(union?.discriminator?.propertyName).toBe('type')
    expect(Object.keys(union?.discriminator?.mapping ?? {})).toEqual([...SESSION_EVENT_TYPES])
    for (const type of SESSION_EVENT_TYPES) {
      const ref = `#/components/schemas/${type}Event`
      expect(union?.discriminator?.mapping[type]).toBe(ref)
      expect(union?.anyOf).toContainEqual({ $ref: ref })
      const schema = document.components.schemas[`${type}Event`]
      expect(schema?.properties?.['type']?.enum).toEqual([type])
      expect(schema?.required).toEqual(expect.arrayContaining(['type', 'sessionId', 'seq', 'at']))
      expect(typeof schema?.description, type).toBe('string')
      for (const [field, property] of Object.entries(schema?.properties ?? {})) {
        if (field !== 'type' && property.$ref === undefined) expect(typeof property.description, `${type}.${field}`).toBe('string')
      }
      expect(events?.description).toContain(`\`${type}\``)
    }
    expect(events?.description).toMatch(/Last-Event-ID/)
    expect(events?.description).toMatch(/\?after=N/)
    expect(events?.description).toMatch(/sequence number/)
  })

  it('types the numeric parameters as numbers with bounds', () => {
    const parameter = (route: string, name: string): Schema | undefined => document.paths[route]?.['get']?.parameters?.find((p) => p.name === name)?.schema
    expect(parameter('/sessions/{id}/events', 'after')).toMatchObject({ type: 'integer', minimum: 0 })
    expect(parameter('/sessions/{id}/events', 'last-event-id')).toMatchObject({ type: 'integer', minimum: 0 })
    expect(parameter('/sessions', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 })
    expect(parameter('/schedules/{id}', 'wait')).toMatchObject({ type: 'number', minimum: 0, maximum: 300 })
    const patterns = operations().flatMap(([, op]) => (op.parameters ?? []).filter((p) => p.in !== 'path' && typeof p.schema?.pattern === 'string').map((p) => p.name))
    expect(patterns).toEqual([])
  })

  it('lists every error code with its description, and each code has its status at the edge', () => {
    const codes = document.components.schemas['ErrorCode']?.anyOf ?? []
    expect(codes.map((code) => code.enum?.[0])).toEqual(Object.keys(API_ERROR_CODES))
    for (const code of codes) expect(code.description, String(code.enum?.[0])).toBe(API_ERROR_CODES[code.enum?.[0] as keyof typeof API_ERROR_CODES])
    for (const code of Object.keys(API_ERROR_CODES)) expect(statusOf({ code, message: '' }), code).toBeGreaterThanOrEqual(400)
    expect(document.components.schemas['ErrorReply']?.properties?.['error']?.properties?.['code']).toEqual({ $ref: '#/components/schemas/ErrorCode' })
  })

  it('names the servers: the one serving the document, and a local one on the default port', () => {
    expect(document.servers[0]?.url).toBe('/')
    expect(document.servers[1]).toMatchObject({ url: 'http://127.0.0.1:{port}', variables: { port: { default: '8787' } } })
  })

  it('gives every request an example: a value on every parameter and the JSON body', () => {
    const missing: string[] = []
    for (const [name, op] of operations()) {
      for (const parameter of op.parameters ?? []) if (parameter.example === undefined) missing.push(`${name} ${parameter.name}`)
      const media = op.requestBody?.content?.['application/json']
      if (media !== undefined && media.examples?.walkthrough?.value === undefined) missing.push(`${name} body`)
    }
    expect(missing).toEqual([])
  })

  it('passes the Redocly linter with its recommended rules: no error', async () => {
    const redocly = path.join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js')
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }
    const result = await run(process.execPath, [redocly, 'lint', OPENAPI_YAML_PATH, '--format', 'json'], { cwd: REPO_ROOT, env, maxBuffer: 16 * 1024 * 1024 }).catch(
      (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
    )
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; severity: string; message: string }> }
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([])
    expect(report.totals.errors).toBe(0)
    // The one warning left: the project states no license for the document to name.
    expect(report.problems.map((problem) => problem.ruleId)).toEqual(['info-license'])
  }, 60_000)
})
