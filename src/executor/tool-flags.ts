/** @module Flags of one call as the registry and the input declare them (R3, R40). */
import type { ToolDependency, ToolFlags } from '../contracts/flags.js'
import type { ToolEntry } from '../contracts/tool-entry.js'

const NO_DEPENDENCIES: readonly string[] = Object.freeze([])

/** R3: readOnly only when the tool declares it AND its scope is `none`. */
export function flagsFor(entry: ToolEntry, input: unknown): ToolFlags {
  const declared = declaredFlags(entry)
  if (entry.resolveFlags === undefined) return declared
  const dynamic = { ...declared, ...entry.resolveFlags(input) }
  dynamic.readOnly = dynamic.readOnly && dynamic.sideEffectScope === 'none'
  return dynamic
}

/** What the scheduler sees of a call; an unknown tool is only a name (R4 rule 2). */
export function dependencyFor(callId: string, toolName: string, entry: ToolEntry | undefined, input: unknown, dependsOn?: readonly string[]): ToolDependency {
  if (entry === undefined) return { callId, toolName, dependencies: dependsOn }
  const flags = flagsFor(entry, input)
  return {
    callId,
    toolName,
    readOnly: flags.readOnly,
    destructive: flags.destructive,
    concurrentSafe: flags.concurrentSafe,
    sideEffectScope: flags.sideEffectScope,
    dependencies: dependsOn,
  }
}

/** R11: what may be dispatched while the model is still streaming. */
export function isEarlyDispatchEligible(flags: ToolFlags, needsApproval: boolean): boolean {
  return flags.readOnly && flags.concurrentSafe && !flags.destructive && !needsApproval && !flags.alwaysAsk && !flags.requiresUserInteraction && flags.sideEffectScope === 'none'
}

/** Flags as declared, before any input is known (for listings such as GET /tools). */
export function declaredFlags(entry: ToolEntry): ToolFlags {
  const sideEffectScope = entry.permission.sideEffectScope
  return {
    readOnly: entry.readOnly && sideEffectScope === 'none',
    destructive: entry.destructive,
    concurrentSafe: entry.concurrentSafe,
    sideEffectScope,
    alwaysAsk: entry.permission.alwaysAsk === true,
    requiresUserInteraction: entry.requiresUserInteraction === true,
    dependencies: NO_DEPENDENCIES as string[],
  }
}
