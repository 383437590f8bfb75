/**
 * @module The permission service of the permission modes alone, before rules exist:
 * `default` runs read-only calls and asks for the rest; `bypassPermissions` runs everything.
 */
import type { PermissionQuery, PermissionService, PermissionVerdict } from '../contracts/ports.js'
import { accessTargetOf, writesFile } from '../contracts/access-target.js'

const ALLOW_READ_ONLY: PermissionVerdict = Object.freeze({ behavior: 'allow', ruleId: 'mode.readOnly', riskLevel: 'low' })
const ALLOW_BYPASS: PermissionVerdict = Object.freeze({ behavior: 'allow', ruleId: 'mode.bypassPermissions' })
const ALLOW_EDITS: PermissionVerdict = Object.freeze({ behavior: 'allow', ruleId: 'mode.acceptEdits' })
/** Tools that change only the session's own state (todos, plan mode) need no approval. */
const ALLOW_SESSION_SCOPE: PermissionVerdict = Object.freeze({ behavior: 'allow', ruleId: 'mode.sessionScope', riskLevel: 'low' })

function allowedWithoutAsking(query: PermissionQuery): PermissionVerdict | undefined {
  if (query.flags.readOnly) return ALLOW_READ_ONLY
  if (query.flags.sideEffectScope === 'session' && !query.flags.destructive) return ALLOW_SESSION_SCOPE
  return undefined
}

function askVerdict(query: PermissionQuery): PermissionVerdict {
  return {
    behavior: 'ask',
    ruleId: `mode.${query.mode}`,
    reason: `Tool ${query.toolName} requires approval`,
    riskLevel: riskOf(query),
    suggestedRule: query.toolName,
  }
}

/** Plan mode's blanket denial: whatever may change the workspace or the system. */
function changesWorkspace(query: PermissionQuery): boolean {
  const scope = query.flags.sideEffectScope
  return query.flags.destructive || scope === 'workspace' || scope === 'system'
}

function riskOf(query: PermissionQuery): 'low' | 'medium' | 'high' {
  if (query.flags.destructive || query.flags.sideEffectScope === 'system') return 'high'
  return query.flags.sideEffectScope === 'none' ? 'low' : 'medium'
}

export function evaluateMode(query: PermissionQuery): PermissionVerdict {
  switch (query.mode) {
    case 'bypassPermissions':
      return ALLOW_BYPASS
    case 'acceptEdits':
      if (writesFile({ target: accessTargetOf(query.entry, query.input) })) return ALLOW_EDITS
      return allowedWithoutAsking(query) ?? askVerdict(query)
    case 'plan':
      if (query.flags.readOnly) return ALLOW_READ_ONLY
      if (changesWorkspace(query)) {
        return { behavior: 'deny', ruleId: 'mode.plan', modeDeny: true, reason: `${query.toolName} is not allowed in plan mode` }
      }
      return allowedWithoutAsking(query) ?? askVerdict(query)
    case 'dontAsk':
      return allowedWithoutAsking(query) ?? { behavior: 'deny', ruleId: 'mode.dontAsk', reason: `Permission denied for ${query.toolName}` }
    case 'default':
      return allowedWithoutAsking(query) ?? askVerdict(query)
  }
}

export function createModePermissionService(): PermissionService {
  return { evaluate: evaluateMode }
}
