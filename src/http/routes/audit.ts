/** @module The audit log: who decided approvals, minted and revoked keys, removed rules and tools, deleted sessions. */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import { AuditPageSchema, AuditQuerySchema } from '../../contracts/audit.js'
import type { Runtime } from '../../sessions/runtime.js'
import { principalOf } from '../principal.js'
import { errors, inline } from '../schema.js'

export const auditRoutes: FastifyPluginCallbackTypebox<{ runtime: Runtime }> = (app, { runtime }, done) => {
  app.get(
    '/audit',
    {
      schema: {
        operationId: 'listAudit',
        summary: 'The audit log, oldest first: a page of entries after `after`, filtered by kind, actor, session and time',
        description: [
          'Each entry holds the hash of the one before, so an entry edited, removed or reordered is told by `toolexec audit verify`.',
          'Pass `next` as `after` for the next page; `next` is null at the end of the log. A key limited to sessions or workspaces reads',
          'only the entries of the sessions it sees, so its pages may hold fewer entries than `limit`.',
        ].join(' '),
        tags: ['audit'],
        querystring: AuditQuerySchema,
        response: { 200: inline(AuditPageSchema), ...errors(400) },
      },
    },
    (request) => runtime.audit.page(principalOf(request), request.query),
  )
  done()
}
