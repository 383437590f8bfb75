/**
 * @module Route validators compiled at a route's first request rather than all at start:
 * ajv's code generation for every route's schemas was most of the time fastify took to get
 * ready (~0.3 s of a start on a 2-core machine), for routes a given server may never see.
 * The same Ajv instance, options and schemas as before: only when each is compiled differs.
 * A schema with a top-level `$id` is compiled at once, so that fastify finds it by id as
 * before (route schemas are inlined without ids: schema.ts).
 */
import type { FastifyServerOptions } from 'fastify'

type Ajv = Parameters<NonNullable<NonNullable<FastifyServerOptions['ajv']>['onCreate']>>[0]
type Validate = ReturnType<Ajv['compile']>

/** For fastify's `ajv.onCreate`: the instance's compile() gives a validator that compiles on its first call. */
export function compileOnFirstUse(ajv: Ajv): void {
  const compile = ajv.compile.bind(ajv)
  const deferred = (schema: Parameters<Ajv['compile']>[0]): Validate => {
    if (typeof schema === 'object' && typeof schema.$id === 'string') return compile(schema)
    let compiled: Validate | undefined
    const validate = function (this: unknown, ...args: Parameters<Validate>): ReturnType<Validate> {
      compiled ??= compile(schema)
      const result = compiled.apply(this, args)
      validate.errors = compiled.errors
      return result
    } as Validate
    // fastify passes the request as the parent of the validated value only to a validator
    // with a schemaEnv (ajv's own have one), so that ajv may replace the value whole.
    Object.defineProperty(validate, 'schemaEnv', { get: () => (compiled ??= compile(schema)).schemaEnv })
    return validate
  }
  ajv.compile = deferred as Ajv['compile']
}
