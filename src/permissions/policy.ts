/**
 * @module The permission policy from config files: rules and hooks from the server's file
 * (checked at start: a malformed rule is refused with the file, the rule and the reason),
 * rules from a workspace's `.toolexec/config.json` (read when it changes; a workspace may add
 * rules but cannot loosen the server's deny rules, which are checked first), and the
 * project grants kept in the database.
 */
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import type { ValueError } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'
import { HooksConfigSchema, type HooksConfig } from '../contracts/hook-config.js'
import { PermissionsConfigSchema, type PermissionsConfig } from '../contracts/permission-config.js'
import { environmentSettingsProblem } from '../processes/command-environment.js'
import { compileRule, type CommandSplitter, type CompiledRule, type RuleKind } from './rule-matcher.js'
import { EMPTY_RULES, type RuleSet, type RuleSource } from './rule-permission-service.js'

export const WORKSPACE_CONFIG = path.join('.toolexec', 'config.json')

export class PolicyError extends Error {
  override readonly name = 'PolicyError'
}

export interface Policy {
  readonly permissions: PermissionsConfig
  readonly rules: RuleSet
  readonly hooks: HooksConfig
}

function checked<T>(schema: Parameters<typeof Value.Check>[0], value: unknown, where: string): T {
  if (Value.Check(schema, value)) return value as T
  const first = Value.Errors(schema, value).First()
  const error = first === undefined ? undefined : withinUnion(first)
  throw new PolicyError(`${where}: ${error === undefined ? 'invalid' : `${error.path || '/'} ${error.message}`}`)
}

/**
 * A hook entry matches neither the command nor the HTTP shape: "Expected union value" says
 * nothing of what to fix, so the error is taken from the shape it comes closest to (fewest
 * errors). A union of plain values (a mode) has no fields to point at and keeps its error.
 */
function withinUnion(error: ValueError): ValueError {
  const variants = error.errors.map((iterator) => [...iterator])
  const fieldErrors = variants.filter((errors) => errors.length > 0 && errors.every((inner) => inner.path !== error.path))
  if (fieldErrors.length === 0) return error
  const closest = fieldErrors.reduce((best, errors) => (errors.length < best.length ? errors : best))
  return withinUnion(closest[0] as ValueError)
}

export function compileRules(config: PermissionsConfig, file: string, split: CommandSplitter): RuleSet {
  const compile = (kind: RuleKind): CompiledRule[] =>
    (config[kind] ?? []).map((source) => {
      try {
        return compileRule(source, kind, split)
      } catch (error) {
        throw new PolicyError(`${file}: permissions.${kind} rule "${source}": ${error instanceof Error ? error.message : String(error)}`)
      }
    })
  return { deny: compile('deny'), ask: compile('ask'), allow: compile('allow') }
}

const SECTION_SHAPES = {
  permissions: 'an object',
  hooks: 'an object mapping hook events to matcher groups',
} as const

/** Left out, a section is empty; null or any other non-object is refused, as `tools` and `mcpServers` are. */
function sectionOf(fileConfig: Record<string, unknown>, name: keyof typeof SECTION_SHAPES, file: string): unknown {
  const value = fileConfig[name]
  if (value === undefined) return {}
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value
  throw new PolicyError(`${file}: ${name} must be ${SECTION_SHAPES[name]}`)
}

/** The server's policy; throws PolicyError naming the file, the rule and the reason. */
export function loadPolicy(fileConfig: Record<string, unknown>, file: string, split: CommandSplitter): Policy {
  const permissions = checked<PermissionsConfig>(PermissionsConfigSchema, sectionOf(fileConfig, 'permissions', file), `${file}: permissions`)
  const hooks = checked<HooksConfig>(HooksConfigSchema, sectionOf(fileConfig, 'hooks', file), `${file}: hooks`)
  for (const [event, groups] of Object.entries(hooks)) {
    for (const group of groups ?? []) {
      for (const hook of group.hooks) {
        const problem = hook.type === 'command' ? environmentSettingsProblem(hook) : undefined
        if (problem !== undefined && hook.type === 'command') throw new PolicyError(`${file}: hooks.${event} command "${hook.command}": ${problem}`)
      }
      try {
        if (group.matcher !== undefined && !/^[A-Za-z0-9_\-|*]*$/.test(group.matcher)) new RegExp(group.matcher)
      } catch (error) {
        throw new PolicyError(`${file}: hooks.${event} matcher "${group.matcher}": ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }
  return { permissions, rules: compileRules(permissions, file, split), hooks }
}

interface CachedRules {
  readonly mtimeMs: number
  readonly rules: RuleSet
}

/** Rules of each workspace's own config file, re-read when the file changes. */
export function workspaceRules(split: CommandSplitter): (workspace: string) => RuleSet {
  const cache = new Map<string, CachedRules>()
  return function rulesOfWorkspace(workspace) {
    const file = path.join(workspace, WORKSPACE_CONFIG)
    let mtimeMs: number
    try {
      // Most workspaces have no such file: without the throw, that answer costs a plain stat.
      const stat = statSync(file, { throwIfNoEntry: false })
      if (stat === undefined) return EMPTY_RULES
      mtimeMs = stat.mtimeMs
    } catch {
      return EMPTY_RULES
    }
    const cached = cache.get(file)
    if (cached !== undefined && cached.mtimeMs === mtimeMs) return cached.rules
    const rules = readWorkspaceRules(file, split)
    cache.set(file, { mtimeMs, rules })
    return rules
  }
}

/** A broken workspace file denies everything it could have loosened: it asks for every call. */
function readWorkspaceRules(file: string, split: CommandSplitter): RuleSet {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'))
    const config = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
    const permissions = checked<PermissionsConfig>(PermissionsConfigSchema, config.permissions ?? {}, `${file}: permissions`)
    return compileRules({ allow: permissions.allow, ask: permissions.ask, deny: permissions.deny }, file, split)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    const askAll: CompiledRule = { source: `invalid ${file}: ${reason}`, kind: 'ask', matches: () => true }
    return { deny: [], ask: [askAll], allow: [] }
  }
}

/** Server rules first, then the workspace's, then the project grants of the database. */
export function ruleSource(server: RuleSet, workspace: (ws: string) => RuleSet, grants: (ws: string) => RuleSet): RuleSource {
  return (ws) => [server, workspace(ws), grants(ws)]
}
