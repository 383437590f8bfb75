/**
 * @module Session grants: after an approval with `scope: session`, the same tool with the
 * same rule key runs without asking for the rest of the session.
 */
import type { PermissionQuery, PermissionService, PermissionVerdict } from '../contracts/ports.js'

export interface GrantLookup {
  hasGrant(sessionId: string, toolName: string, ruleKey: string): Promise<boolean>
}

export function ruleKeyOf(verdict: PermissionVerdict, toolName: string): string {
  return verdict.suggestedRule ?? toolName
}

export function withSessionGrants(base: PermissionService, grants: GrantLookup): PermissionService {
  return {
    evaluate: async function evaluateWithGrants(query: PermissionQuery): Promise<PermissionVerdict> {
      const verdict = await base.evaluate(query)
      if (verdict.behavior !== 'ask' || query.flags.alwaysAsk) return verdict
      const key = ruleKeyOf(verdict, query.toolName)
      if (!(await grants.hasGrant(query.sessionId, query.toolName, key))) return verdict
      // A grant of a path outside reaches where the path leads now, as the approval did.
      return { behavior: 'allow', ruleId: `grant:${key}`, reason: `Allowed for this session by an earlier approval of ${key}`, leadsTo: verdict.leadsTo }
    },
  }
}
