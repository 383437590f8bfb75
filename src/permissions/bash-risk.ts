/**
 * @module The risk label of a Bash command that asks, from what the classifier found
 * (bash-classifier.ts): `low` when every part is a known read-only program (it asks only where
 * the sandbox is missing or a rule asks), `medium` when the command splits into simple commands
 * the person can read but one is not known to be read-only, `high` when what runs is only
 * known when it runs (a substitution, a control structure, a program named by a variable).
 */
import type { RiskLevel } from '../contracts/events.js'
import { classifyBashCommand, splitCompoundCommand } from './bash-classifier.js'

const RUN_TIME = /only known at run time/

export interface CommandRisk {
  readonly riskLevel: RiskLevel
  /** What the classifier found, in words: the approval shows it. */
  readonly finding: string
}

export function bashRisk(command: string): CommandRisk {
  const classified = classifyBashCommand(command)
  if (classified.readOnly) return { riskLevel: 'low', finding: classified.reason }
  if (RUN_TIME.test(classified.reason)) return { riskLevel: 'high', finding: classified.reason }
  if (splitCompoundCommand(command) === undefined) return { riskLevel: 'high', finding: `${classified.reason}: what it runs is only known when it runs` }
  return { riskLevel: 'medium', finding: classified.reason }
}

/** The risk and reason of a mode's ask for a command, or nothing for another tool. */
export function commandRisk(toolName: string, command: string | undefined): { readonly riskLevel: RiskLevel; readonly reason: string } | undefined {
  if (command === undefined) return undefined
  const { riskLevel, finding } = bashRisk(command)
  return { riskLevel, reason: `Tool ${toolName} requires approval: ${finding}` }
}
