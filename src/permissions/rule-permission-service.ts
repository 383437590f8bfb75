/**
 * @module The permission service with rules: deny rules, then the files that steer the agent
 * or git (always ask, in every mode, protected-paths.ts), then plan mode's blanket denial,
 * then ask rules, then paths outside the workspace (ask, naming the path), then allow rules,
 * then the permission mode. A read-only git command that would run unasked asks when the
 * repository's config names programs (git-config-programs.ts). The first match wins; in
 * dontAsk mode what would ask is denied.
 */
import path from 'node:path'
import type { PermissionQuery, PermissionService, PermissionVerdict } from '../contracts/ports.js'
import { isWithin, realLocation } from '../paths/locations.js'
import { classifyBashCommand } from './bash-classifier.js'
import { pathsOfCommand } from './bash-paths.js'
import { gitConfigProgramsProblem } from './git-config-programs.js'
import { isProtectedRelative, protectedBashWrite } from './protected-paths.js'
import { evaluateMode } from './mode-permission-service.js'
import { ruleCommandSplitter } from './command-splitter.js'
import { accessTargetOf, commandOf, fileTargetOf, writesFile } from '../contracts/access-target.js'
import { STEERING_RULE_ID } from '../contracts/permission-outcomes.js'
import { partRequestsOf, type CommandSplitter, type CompiledRule, type RuleRequest } from './rule-matcher.js'
import { narrowestRule, relativeInside } from './narrowest-rule.js'
import { commandRisk } from './bash-risk.js'
import { ruleChoicesOf } from './rule-choices.js'

export interface RuleSet {
  readonly deny: readonly CompiledRule[]
  readonly ask: readonly CompiledRule[]
  readonly allow: readonly CompiledRule[]
}

export const EMPTY_RULES: RuleSet = { deny: [], ask: [], allow: [] }

/** The rules in force for a workspace: the server's, the workspace's own and its grants. */
export type RuleSource = (workspace: string) => readonly RuleSet[] | Promise<readonly RuleSet[]>

export function createRulePermissionService(rules: RuleSource, split: CommandSplitter = ruleCommandSplitter): PermissionService {
  return {
    evaluate: async function evaluateWithRules(query: PermissionQuery): Promise<PermissionVerdict> {
      const verdict = await decide(query)
      if (verdict.behavior !== 'ask' || verdict.suggestedRule === undefined) return verdict
      return { ...verdict, suggestedRules: ruleChoicesOf(query.toolName, query.input, verdict.suggestedRule, query.workspace ?? process.cwd(), split) }
    },
  }

  async function decide(query: PermissionQuery): Promise<PermissionVerdict> {
    const workspace = query.workspace ?? process.cwd()
    const request: RuleRequest = { toolName: query.toolName, input: query.input, workspace, target: accessTargetOf(query.entry, query.input) }
    const sets = await rules(workspace)
    const suggestedRule = narrowestRule(request)
    const first = (kind: keyof RuleSet): CompiledRule | undefined => {
      for (const set of sets) {
        const hit = set[kind].find((rule) => rule.matches(request))
        if (hit !== undefined) return hit
      }
      return undefined
    }
    const denied = first('deny')
    if (denied !== undefined) return { behavior: 'deny', ruleId: denied.source, reason: `Permission to use ${query.toolName} has been denied by the rule ${denied.source}` }
    const located = await pathTarget(request)
    const steering = steeringTarget(request, located) ?? (await steeringByBash(request))
    if (steering !== undefined) {
      return { behavior: 'ask', ruleId: STEERING_RULE_ID, explicitAsk: true, riskLevel: 'high', reason: steeringReason(steering), suggestedRule }
    }
    const asked = first('ask')
    const planDenied = query.mode === 'plan' ? evaluateMode(query) : undefined
    // Plan mode's denial beats ask and allow rules; an ask rule still counts for memory files (A9).
    if (planDenied?.behavior === 'deny') return asked === undefined ? planDenied : { ...planDenied, explicitAsk: true }
    if (asked !== undefined) {
      const reason = `The rule ${asked.source} asks before ${query.toolName} runs`
      if (query.mode === 'dontAsk') return { behavior: 'deny', ruleId: asked.source, reason: `${reason}, and dontAsk mode denies what would ask` }
      return { behavior: 'ask', ruleId: asked.source, explicitAsk: true, reason, suggestedRule }
    }
    const outside = query.mode === 'bypassPermissions' ? undefined : (outsidePath(request, located) ?? (await outsideBashPath(request)))
    const single = first('allow')
    const combined = single === undefined ? allowedPartByPart(request, sets, split) : undefined
    const allowed = single ?? combined
    if (outside !== undefined && allowed === undefined) {
      const reason = `${outside.shown} is outside the workspace ${workspace}`
      if (query.mode === 'dontAsk') return { behavior: 'deny', ruleId: 'workspace.outside', reason }
      // Not an explicit ask: a memory file outside the workspace is still allowed (A9).
      return { behavior: 'ask', ruleId: 'workspace.outside', riskLevel: 'high', reason, suggestedRule, leadsTo: outside.leadsTo }
    }
    if (allowed !== undefined) {
      const reason = `Allowed by the ${combined === undefined ? 'rule' : 'rules'} ${allowed.source}`
      // A rule that allows a path outside lets the call reach where it leads now, and nowhere else.
      return { behavior: 'allow', ruleId: allowed.source, reason, leadsTo: outside?.leadsTo }
    }
    const verdict = evaluateMode(query)
    if (verdict.behavior === 'allow' && verdict.ruleId === 'mode.readOnly') {
      const programs = await gitProgramsOfReadOnly(request)
      if (programs !== undefined) {
        const reason = `${programs}: a read-only git command needs approval here`
        if (query.mode === 'dontAsk') return { behavior: 'deny', ruleId: 'git.config', reason }
        return { behavior: 'ask', ruleId: 'git.config', riskLevel: 'high', reason, suggestedRule }
      }
    }
    // The mode's risk comes from the tool's flags; a command's from what the classifier found in it.
    return verdict.behavior === 'ask' ? { ...verdict, suggestedRule, ...commandRisk(query.toolName, commandOf(request)) } : verdict
  }
}

/**
 * A compound command that no single allow rule covers is allowed when each of its parts is
 * allowed by some rule (`npm test && npm run lint` with a rule for each), as in Claude Code.
 */
function allowedPartByPart(request: RuleRequest, sets: readonly RuleSet[], split: CommandSplitter): CompiledRule | undefined {
  const parts = partRequestsOf(request, split)
  if (parts === undefined) return undefined
  const sources: string[] = []
  for (const partRequest of parts) {
    const rule = sets.flatMap((set) => set.allow).find((candidate) => candidate.matches(partRequest))
    if (rule === undefined) return undefined
    if (!sources.includes(rule.source)) sources.push(rule.source)
  }
  const source = sources.join(', ')
  return { source, kind: 'allow', matches: () => true }
}

function target(request: RuleRequest): string | undefined {
  const file = fileTargetOf(request)
  return file === undefined ? undefined : path.resolve(request.workspace, file.path)
}

/** A path tool's target by name and, through symlinks, where it really is. */
interface PathTarget {
  readonly full: string
  /** Real locations of the target and of the workspace; undefined when they cannot be resolved. */
  readonly real?: { readonly target: string; readonly workspace: string } | undefined
}

async function pathTarget(request: RuleRequest): Promise<PathTarget | undefined> {
  const full = target(request)
  if (full === undefined) return undefined
  try {
    return { full, real: { target: await realLocation(full), workspace: await realLocation(path.resolve(request.workspace)) } }
  } catch {
    return { full }
  }
}

function steeringFile(request: RuleRequest, workspace: string, full: string): string | undefined {
  if (!writesFile(request)) return undefined
  const relative = relativeInside(workspace, full)
  return relative !== undefined && relative !== '' && isProtectedRelative(relative) ? relative : undefined
}

function steeringReason(steering: string): string {
  const controlsGit = /(?:^|[\\/\s])\.git(?:$|[\\/\s])/i.test(steering)
  return `${steering} ${controlsGit ? 'controls what git runs' : 'steers the agent'}: writing it always needs approval`
}

/** A Bash command that is not read-only and may write a steering file or into `.git/`. */
async function steeringByBash(request: RuleRequest): Promise<string | undefined> {
  const command = commandOf(request)
  if (command === undefined || classifyBashCommand(command).readOnly) return undefined
  return protectedBashWrite(command, request.workspace)
}

async function gitProgramsOfReadOnly(request: RuleRequest): Promise<string | undefined> {
  const command = commandOf(request)
  return command === undefined ? undefined : gitConfigProgramsProblem(command, request.workspace)
}

/** A steering file by its name or by what the name really is: a symlink to AGENTS.md writes AGENTS.md. */
function steeringTarget(request: RuleRequest, located: PathTarget | undefined): string | undefined {
  if (located === undefined) return undefined
  const byName = steeringFile(request, request.workspace, located.full)
  const real = located.real
  return byName ?? (real === undefined ? undefined : steeringFile(request, real.workspace, real.target))
}

interface OutsideTarget {
  /** The path as the ask shows it. */
  readonly shown: string
  /** Its real location when asked: what an approval lets the call reach. */
  readonly leadsTo?: string | undefined
}

function outsidePath(request: RuleRequest, located: PathTarget | undefined): OutsideTarget | undefined {
  if (located === undefined) return undefined
  const { full, real } = located
  if (relativeInside(request.workspace, full) === undefined) return { shown: full, leadsTo: real?.target }
  // A symlink inside may lead out: an approval lets the call follow it, so the person must see where.
  if (real === undefined || isWithin(real.workspace, real.target)) return undefined
  return { shown: `${full} (it leads to ${real.target})`, leadsTo: real.target }
}

/** The first path a Bash command names that is, or leads, outside the workspace. */
async function outsideBashPath(request: RuleRequest): Promise<OutsideTarget | undefined> {
  const command = commandOf(request)
  if (command === undefined) return undefined
  const candidates = pathsOfCommand(command, request.workspace)
  if (candidates.length === 0) return undefined
  const workspace = path.resolve(request.workspace)
  const realWorkspace = await realLocation(workspace).catch(() => workspace)
  for (const candidate of candidates) {
    if (candidate.kind === 'unknown') return { shown: `${candidate.word} (only known when the command runs)` }
    if (relativeInside(workspace, candidate.absolute) === undefined) return { shown: candidate.absolute }
    const real = await realLocation(candidate.absolute).catch(() => candidate.absolute)
    if (!isWithin(realWorkspace, real)) return { shown: `${candidate.absolute} (it leads to ${real})` }
  }
  return undefined
}
