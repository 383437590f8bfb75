/** @module The server's fourEyes rules (permissions.fourEyes): which calls no key may approve that scheduled them, in every session. */
import { accessTargetOf } from '../contracts/access-target.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import type { CompiledRule } from './rule-matcher.js'

export interface FourEyesCall {
  readonly toolName: string
  /** The input the approval request shows: the call's resolved input. */
  readonly input: unknown
  readonly workspace: string
}

/** The source of the first rule matching the call, or undefined. */
export type FourEyesRule = (call: FourEyesCall) => string | undefined

export function fourEyesRule(rules: readonly CompiledRule[], toolEntry: (name: string) => ToolEntry | undefined): FourEyesRule {
  if (rules.length === 0) return () => undefined
  return function fourEyesRuleOf(call) {
    const request = { ...call, target: accessTargetOf(toolEntry(call.toolName), call.input) }
    return rules.find((rule) => rule.matches(request))?.source
  }
}
