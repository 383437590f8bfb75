/** Rule requests as the rule permission service builds them: the target from the built-in tool's own entry. */
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { accessTargetOf } from '../../src/contracts/access-target.js'
import type { RuleRequest } from '../../src/permissions/rule-matcher.js'
import { builtinTools } from '../../src/tools/builtin.js'

const BUILTIN: ReadonlyMap<string, ToolEntry> = new Map(builtinTools({ sandbox: { mode: 'off', confined: false } }).map((entry) => [entry.name, entry]))

/** A request for the built-in tool of that name (or a tool that declares no target). */
export function ruleRequest(toolName: string, input: unknown, workspace: string): RuleRequest {
  return { toolName, input, workspace, target: accessTargetOf(BUILTIN.get(toolName), input) }
}
