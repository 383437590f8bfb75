/**
 * @module The scheduler: parallel/serial grouping in the model's order (R4, R5) with an
 * optional declared-dependency topological order and cycle detection (R6).
 */
import type { ToolDependency } from '../contracts/flags.js'
import { ToolexecError } from '../contracts/errors.js'

export const MAX_GROUP_SIZE = 10

/** Names treated as read-only when the registry knows nothing of them (R4 rule 2). */
export const READ_ONLY_TOOL_NAMES: ReadonlySet<string> = new Set(['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch', 'TodoRead', 'TodoWrite', 'AskUserQuestion', 'Skill'])

/** R4, in the seed's order of checks. */
export function canRunInParallel(tool: ToolDependency): boolean {
  const hasToolName = typeof tool.toolName === 'string' && tool.toolName.length > 0
  const hasSafetyMetadata = tool.readOnly !== undefined || tool.destructive !== undefined || tool.concurrentSafe !== undefined || tool.sideEffectScope !== undefined
  if (!hasToolName && !hasSafetyMetadata) return true
  const readOnly = tool.readOnly ?? (hasToolName ? READ_ONLY_TOOL_NAMES.has(tool.toolName) : false)
  if (tool.destructive === true) return false
  if (tool.concurrentSafe === true) return true
  if (tool.concurrentSafe === false) return false
  if (readOnly) return true
  return tool.sideEffectScope === 'none'
}

/**
 * Plans groups of call ids. With no dependencies declared this is exactly R5; with some,
 * the model's order is kept as far as the dependencies allow and a call never shares a
 * group with a call it depends on.
 */
export function planSchedule(tools: readonly ToolDependency[]): string[][] {
  assertUniqueIds(tools)
  const ordered = hasDependencies(tools) ? topologicalOrder(tools) : tools
  return groupInOrder(ordered)
}

function hasDependencies(tools: readonly ToolDependency[]): boolean {
  return tools.some((tool) => tool.dependencies !== undefined && tool.dependencies.length > 0)
}

function groupInOrder(tools: readonly ToolDependency[]): string[][] {
  const groups: string[][] = []
  let open: string[] = []
  const flush = (): void => {
    if (open.length > 0) groups.push(open)
    open = []
  }
  for (const tool of tools) {
    if (!canRunInParallel(tool)) {
      flush()
      groups.push([tool.callId])
      continue
    }
    if (open.length >= MAX_GROUP_SIZE || dependsOnAny(tool, open)) flush()
    open.push(tool.callId)
  }
  flush()
  return groups
}

function dependsOnAny(tool: ToolDependency, group: readonly string[]): boolean {
  const deps = tool.dependencies
  if (deps === undefined || deps.length === 0) return false
  return deps.some((dep) => group.includes(dep))
}

/** Kahn's algorithm that always takes the earliest ready call in the model's order. */
function topologicalOrder(tools: readonly ToolDependency[]): ToolDependency[] {
  const byId = indexById(tools)
  const placed = new Set<string>()
  const order: ToolDependency[] = []
  while (order.length < tools.length) {
    const next = tools.find((tool) => !placed.has(tool.callId) && (tool.dependencies ?? []).every((d) => placed.has(d)))
    if (next === undefined)
      throw cycleError(
        tools.filter((tool) => !placed.has(tool.callId)),
        byId,
      )
    placed.add(next.callId)
    order.push(next)
  }
  return order
}

function assertUniqueIds(tools: readonly ToolDependency[]): void {
  const seen = new Set<string>()
  for (const tool of tools) {
    if (seen.has(tool.callId)) throw new ToolexecError('EXEC_ERR_DUPLICATE_CALL_ID', [tool.callId])
    seen.add(tool.callId)
  }
}

function indexById(tools: readonly ToolDependency[]): Map<string, ToolDependency> {
  const byId = new Map<string, ToolDependency>()
  for (const tool of tools) byId.set(tool.callId, tool)
  for (const tool of tools) {
    for (const dep of tool.dependencies ?? []) {
      if (!byId.has(dep)) throw new ToolexecError('EXEC_ERR_UNKNOWN_DEPENDENCY', [tool.callId, dep])
    }
  }
  return byId
}

/** Names one cycle among the calls that could not be placed, e.g. `a -> b -> a`. */
function cycleError(stuck: readonly ToolDependency[], byId: Map<string, ToolDependency>): ToolexecError {
  const path: string[] = []
  let current = stuck[0]
  while (current !== undefined && !path.includes(current.callId)) {
    path.push(current.callId)
    const nextId: string | undefined = (current.dependencies ?? []).find((dep) => stuck.some((s) => s.callId === dep))
    current = nextId === undefined ? undefined : byId.get(nextId)
  }
  const cycle = current === undefined ? path : [...path.slice(path.indexOf(current.callId)), current.callId]
  return new ToolexecError('EXEC_ERR_DEPENDENCY_CYCLE', [cycle.join(' -> ')], {
    context: { callIds: stuck.map((s) => s.callId) },
  })
}
