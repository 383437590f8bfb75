/**
 * fast-check arbitraries of malformed HTTP requests for the fuzz test: near-valid bodies
 * with fields missing, extra or of the wrong type, random JSON, invalid JSON text, huge
 * strings, deep nesting, wrong content types, random path params, query strings and
 * headers. Bodies are built as JSON text so that nesting can be deeper than a JS value
 * could be stringified.
 *
 * Valid ids that could create a session are drawn from fixed pools or fresh uuids, so a
 * session the fuzz creates with a short permission timeout never meets a schedule: no
 * timer writes rows in the background while a rejected request is being checked.
 */
import fc from 'fast-check'

export interface FuzzRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string | undefined
}

export interface FuzzPools {
  /** Existing sessions; path params also try a missing one. */
  readonly sessions: readonly string[]
  readonly doneSchedules: readonly string[]
  readonly openSchedules: readonly string[]
  readonly permissions: readonly string[]
  readonly artifacts: readonly (readonly [string, string])[]
}

type Text = fc.Arbitrary<string>

const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 40 })
const json = (value: unknown): string => JSON.stringify(value)

/** Any JSON value as text. */
export const anyJson: Text = fc.jsonValue({ maxDepth: 3 }).map(json)

/** Just past the 200-character id limit, past 4 KiB, and 1 MB (rarely: it is slow to send). */
const hugeString: Text = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom(201, 4_097, 50_001), fc.constantFrom('x', 'é', '🙂')).map(([n, unit]) => json(unit.repeat(n))), weight: 9 },
  { arbitrary: fc.constant(json('x'.repeat(1_000_001))), weight: 1 },
)

/** Arrays or objects nested past any sane depth, as raw text. */
const deepJson: Text = fc
  .tuple(fc.integer({ min: 100, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '0' + '}'.repeat(depth)))

/** What replaces a valid field value: any JSON, a huge string, or deep nesting. */
const junk: Text = fc.oneof({ arbitrary: anyJson, weight: 4 }, { arbitrary: hugeString, weight: 1 }, { arbitrary: deepJson, weight: 1 })

type Mutation = { readonly kind: 'drop'; readonly key: string } | { readonly kind: 'set'; readonly key: string; readonly value: string }

function mutation(keys: readonly string[]): fc.Arbitrary<Mutation> {
  const extra = fc.record({ kind: fc.constant('set' as const), key: printable, value: anyJson })
  if (keys.length === 0) return extra
  const known = fc.constantFrom(...keys)
  return fc.oneof(fc.record({ kind: fc.constant('drop' as const), key: known }), fc.record({ kind: fc.constant('set' as const), key: known, value: junk }), extra)
}

/**
 * A valid object (optional fields present or not), then none, one or two mutations: a field
 * dropped, a field set to junk, or an unknown field added.
 */
function nearValid(fields: Record<string, Text>, optional: readonly string[] = [], cleanWeight = 2): Text {
  const keys = Object.keys(fields)
  const required = keys.filter((key) => !optional.includes(key))
  const mutations = fc.oneof({ arbitrary: fc.constant<Mutation[]>([]), weight: cleanWeight }, { arbitrary: fc.array(mutation(keys), { minLength: 1, maxLength: 2 }), weight: 3 })
  return fc.tuple(fc.record(fields, { requiredKeys: required }), mutations).map(([valid, changes]) => {
    const entries = new Map<string, string>(Object.entries(valid))
    for (const change of changes) {
      if (change.kind === 'drop') entries.delete(change.key)
      else entries.set(change.key, change.value)
    }
    return `{${[...entries].map(([key, value]) => `${json(key)}:${value}`).join(',')}}`
  })
}

const invalidJsonText: Text = fc.oneof(
  fc.string(),
  fc.constantFrom('', ' ', '{', '[', 'nul', '{"a":}', '{"a" 1}', "{'a':1}", '[1,]', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
)

/** A body: mostly near-valid objects, else random JSON, broken JSON or deep nesting. */
function bodyText(fields: Record<string, Text>, optional: readonly string[] = []): Text {
  const near = nearValid(fields, optional)
  const truncated = near.chain((text) => fc.nat({ max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut)))
  return fc.oneof({ arbitrary: near, weight: 8 }, { arbitrary: anyJson, weight: 2 }, { arbitrary: invalidJsonText, weight: 2 }, { arbitrary: truncated, weight: 1 }, { arbitrary: deepJson, weight: 1 })
}

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/jsonx',
  'json',
]
const contentType = fc.oneof({ arbitrary: fc.constant('application/json'), weight: 8 }, { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 2 }, { arbitrary: printable, weight: 1 })

function withBody(method: string, path: fc.Arbitrary<string>, body: Text): fc.Arbitrary<FuzzRequest> {
  return fc.record({ path, body, type: fc.option(contentType, { freq: 8 }) }).map(({ path: p, body: b, type }): FuzzRequest => ({
    method,
    path: p,
    headers: type === null ? {} : { 'content-type': type },
    body: b,
  }))
}

const BROKEN_SEGMENTS = ['%', '%zz', '%C0%80', '%E0%A4%A', '..', '.', '%2F', 'a%00b', '%20', '%2e%2e']

/** A path parameter, already encoded: a known id, a random one, a broken escape or an over-long one. */
function param(known: readonly string[]): Text {
  const options: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.string({ maxLength: 30 }).map(encodeURIComponent), weight: 3 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }).map(encodeURIComponent), weight: 1 },
    { arbitrary: fc.constantFrom(...BROKEN_SEGMENTS), weight: 1 },
    { arbitrary: fc.integer({ min: 190, max: 1_300 }).map((n) => 'a'.repeat(n)), weight: 1 },
  ]
  if (known.length > 0) options.push({ arbitrary: fc.constantFrom(...known).map(encodeURIComponent), weight: 4 })
  return fc.oneof(...options)
}

/** A query string mixing the route's keys with random ones, including broken escapes. */
function query(keys: Record<string, Text>): Text {
  const known = Object.entries(keys).map(([key, value]) => value.map((v) => `${key}=${encodeURIComponent(v)}`))
  const randomPair = fc.tuple(printable, printable).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
  const pair = fc.oneof({ arbitrary: fc.oneof(...known, randomPair), weight: 5 }, { arbitrary: fc.constantFrom('%', 'a=%zz', '&', '=', 'a', 'a=1&a=2'), weight: 1 })
  return fc.array(pair, { maxLength: 3 }).map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`))
}

const numberText = fc.oneof(fc.nat().map(String), fc.integer().map(String), fc.constantFrom('0', '-1', '1e3', '9'.repeat(20), '1.5', ''))
const headerValue = fc.oneof(numberText, printable)

const validId = fc
  .oneof(
    fc.constantFrom('c1', 'c2', 'c3', 'x.y:z@w-1'),
    fc.uuid().map((u) => `c-${u}`),
  )
  .map(json)

/** One call of a schedule, rarely broken (its schedule has its own mutations). */
const callText: Text = nearValid(
  {
    id: validId,
    name: fc.constantFrom('Read', 'Read', 'Edit', 'Nope', '', 'read').map(json),
    input: fc.oneof(fc.constant(json({ file_path: 'a.txt' })), fc.constant(json({ file_path: 'a.txt', fail: true })), anyJson, deepJson),
    dependsOn: fc.array(validId, { maxLength: 2 }).map((ids) => `[${ids.join(',')}]`),
  },
  ['dependsOn'],
  6,
)

/** Session ids a schedule may name: existing ones or fresh ones (created with defaults). */
function scheduleSessionId(pools: FuzzPools): Text {
  return fc
    .oneof(
      fc.constantFrom(...pools.sessions),
      fc.uuid().map((u) => `auto-${u}`),
    )
    .map(json)
}

export function routeRequests(pools: FuzzPools): Record<string, fc.Arbitrary<FuzzRequest>> {
  const sessionParam = param([...pools.sessions, 'fz-missing'])
  const sessionBody = bodyText(
    {
      id: fc
        .oneof(
          fc.constantFrom(...pools.sessions),
          fc.uuid().map((u) => `made-${u}`),
        )
        .map(json),
      workspace: fc.constantFrom('.', 'sub/dir', '/tmp').map(json),
      permissionMode: fc.constantFrom('default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions').map(json),
      interactive: fc.boolean().map(json),
      permissionTimeoutMs: fc.integer({ min: 1, max: 86_400_000 }).map(json),
    },
    ['id', 'workspace', 'permissionMode', 'interactive', 'permissionTimeoutMs'],
  )
  const scheduleBody = bodyText(
    {
      sessionId: scheduleSessionId(pools),
      createSession: fc.constantFrom('{}', '{"workspace":"sub/dir"}', '{"permissionMode":"plan"}'),
      turnId: validId,
      calls: fc.array(callText, { maxLength: 4 }).map((calls) => `[${calls.join(',')}]`),
      open: fc.boolean().map(json),
    },
    ['createSession', 'turnId', 'open'],
  )
  const answerBody = bodyText(
    {
      decision: fc.constantFrom('allow', 'deny').map(json),
      scope: fc.constantFrom('once', 'session').map(json),
      message: printable.map(json),
      sessionId: fc.constantFrom(...pools.sessions).map(json),
    },
    ['scope', 'message', 'sessionId'],
  )
  const get = (path: fc.Arbitrary<string>, headers: fc.Arbitrary<Record<string, string>> = fc.constant({})) => fc.record({ path, headers }).map((r): FuzzRequest => ({ method: 'GET', ...r }))
  return {
    'POST /sessions': withBody(
      'POST',
      query({}).map((q) => `/sessions${q}`),
      sessionBody,
    ),
    'GET /sessions': get(query({ limit: numberText, before: fc.constantFrom(...pools.sessions, 'fz-missing', '') }).map((q) => `/sessions${q}`)),
    'GET /sessions/:id': get(sessionParam.map((id) => `/sessions/${id}`)),
    'POST /sessions/:id/abort': withBody(
      'POST',
      sessionParam.map((id) => `/sessions/${id}/abort`),
      bodyText({}),
    ),
    'GET /sessions/:id/history': get(sessionParam.map((id) => `/sessions/${id}/history`)),
    'GET /sessions/:id/events': get(
      fc.tuple(sessionParam, query({ after: numberText, access_token: printable })).map(([id, q]) => `/sessions/${id}/events${q}`),
      fc.option(headerValue, { freq: 2 }).map((value): Record<string, string> => (value === null ? {} : { 'last-event-id': value })),
    ),
    'POST /schedules': withBody('POST', fc.constant('/schedules'), scheduleBody),
    'POST /schedules/:id/calls': withBody(
      'POST',
      param(pools.openSchedules).map((id) => `/schedules/${id}/calls`),
      fc.oneof(callText, bodyText({})),
    ),
    'POST /schedules/:id/close': withBody(
      'POST',
      param(pools.openSchedules).map((id) => `/schedules/${id}/close`),
      bodyText({}),
    ),
    'GET /schedules/:id': get(fc.tuple(param(pools.doneSchedules), query({ wait: fc.oneof(numberText, fc.constantFrom('0.01', '1.5', '0.0001')) })).map(([id, q]) => `/schedules/${id}${q}`)),
    'POST /permissions/:id': withBody(
      'POST',
      param(pools.permissions).map((id) => `/permissions/${id}`),
      answerBody,
    ),
    'GET /permissions': get(query({ sessionId: fc.constantFrom(...pools.sessions, ''), status: fc.constantFrom('pending', 'allow', '') }).map((q) => `/permissions${q}`)),
    'GET /artifacts/:sessionId/:artifactId': get(
      fc.oneof(
        fc.constantFrom(...pools.artifacts).map(([session, artifact]) => `/artifacts/${encodeURIComponent(session)}/${encodeURIComponent(artifact)}`),
        fc.tuple(param(pools.sessions), param([])).map(([session, artifact]) => `/artifacts/${session}/${artifact}`),
      ),
      fc
        .option(fc.oneof(fc.constantFrom('bytes=0-9', 'bytes=-5', 'bytes=5-', 'bytes=9-0', 'bytes=100000-', 'bytes=0-1,3-4', 'items=0-1'), printable), { freq: 2 })
        .map((range): Record<string, string> => (range === null ? {} : { range })),
    ),
    // Last of the routes that use the pools: an accepted one deletes a pooled session.
    'DELETE /sessions/:id': fc.record({ path: sessionParam.map((id) => `/sessions/${id}`), headers: fc.constant({}) }).map((r): FuzzRequest => ({ method: 'DELETE', ...r })),
    'GET /tools, /healthz, /openapi.json': get(fc.tuple(fc.constantFrom('/tools', '/healthz', '/openapi.json'), query({})).map(([p, q]) => p + q)),
    'any method, any path': fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        segments: fc.array(fc.oneof(fc.constantFrom('sessions', 'schedules', 'permissions', 'events', 'calls', 'close', 'artifacts', 'tools'), param([])), { maxLength: 4 }),
      })
      .map(({ method, segments }): FuzzRequest => ({ method, path: `/${segments.join('/')}`, headers: {} })),
  }
}
