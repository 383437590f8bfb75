/**
 * @module The permission policy from config files: rules and hooks from the server's file
 * (checked at start: a malformed rule is refused with the file, the rule and the reason),
 * rules from a workspace's `.toolexec/config.json` (read when it changes, as a steering file
 * that may be hostile; a workspace may add rules but cannot loosen the server's deny rules,
 * which are checked first), and the project grants kept in the database.
 */
import { lstat } from 'node:fs/promises'
import path from 'node:path'
import type { ValueError } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'
import { HooksConfigSchema, type HooksConfig } from '../contracts/hook-config.js'
import { PermissionsConfigSchema, type PermissionsConfig } from '../contracts/permission-config.js'
import { readSteeringFile } from '../paths/steering-file.js'
import { environmentSettingsProblem } from '../processes/command-environment.js'
import { jsonErrorOffset, lineAndColumn } from './json-error-place.js'
import { compileRule, type CommandSplitter, type CompiledRule, type RuleKind } from './rule-matcher.js'
import { EMPTY_RULES, type RuleSet, type RuleSource } from './rule-permission-service.js'

export const WORKSPACE_CONFIG = path.join('.toolexec', 'config.json')

export class PolicyError extends Error {
  override readonly name = 'PolicyError'
}

export interface Policy {
  readonly permissions: PermissionsConfig
  readonly rules: RuleSet
  /** permissions.fourEyes: the calls under four eyes in every session. */
  readonly fourEyes: readonly CompiledRule[]
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
  const compile = (kind: RuleKind): CompiledRule[] => compileList(config[kind], kind, `${file}: permissions.${kind}`, split)
  return { deny: compile('deny'), ask: compile('ask'), allow: compile('allow') }
}

// A four-eyes rule matches as an ask rule does: a command part matching, or one that cannot be split, is enough.
function compileList(sources: readonly string[] | undefined, kind: RuleKind, where: string, split: CommandSplitter): CompiledRule[] {
  return (sources ?? []).map((source) => {
    try {
      return compileRule(source, kind, split)
    } catch (error) {
      throw new PolicyError(`${where} rule "${source}": ${error instanceof Error ? error.message : String(error)}`)
    }
  })
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
  const fourEyes = compileList(permissions.fourEyes, 'ask', `${file}: permissions.fourEyes`, split)
  return { permissions, rules: compileRules(permissions, file, split), fourEyes, hooks }
}

// A rules file is a few KB; one larger than this is refused, not read.
export const MAX_WORKSPACE_CONFIG_BYTES = 1024 * 1024

interface CachedRules {
  /** What the file was when read: device, inode, size and mtime. */
  readonly identity: string
  readonly rules: RuleSet
}

/**
 * Rules of each workspace's own config file, re-read when the file changes. The file is a
 * steering file the workspace's commands can replace (steering-file.ts): a FIFO, a symlink
 * or a huge file there is refused without waiting and without reading what it points to.
 */
export function workspaceRules(split: CommandSplitter): (workspace: string) => Promise<RuleSet> {
  const cache = new Map<string, CachedRules>()
  return async function rulesOfWorkspace(workspace) {
    const file = path.join(workspace, WORKSPACE_CONFIG)
    // Most workspaces have no such file: that answer costs one lstat, which never waits on what the file is.
    const stat = await lstat(file).catch(() => undefined)
    if (stat === undefined) return EMPTY_RULES
    const identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.mode}`
    const cached = cache.get(file)
    if (cached !== undefined && cached.identity === identity) return cached.rules
    const rules = await readWorkspaceRules(workspace, file, split)
    cache.set(file, { identity, rules })
    return rules
  }
}

/** A broken workspace file denies everything it could have loosened: it asks for every call. */
async function readWorkspaceRules(workspace: string, file: string, split: CommandSplitter): Promise<RuleSet> {
  const read = await readSteeringFile(workspace, WORKSPACE_CONFIG, MAX_WORKSPACE_CONFIG_BYTES)
  if (read.kind === 'missing') return EMPTY_RULES
  if (read.kind === 'refused') return askForEveryCall(file, read.problem)
  try {
    const config = parsedConfig(read.text)
    const permissions = checked<PermissionsConfig>(PermissionsConfigSchema, config.permissions ?? {}, `${file}: permissions`)
    return compileRules({ allow: permissions.allow, ask: permissions.ask, deny: permissions.deny }, file, split)
  } catch (error) {
    return askForEveryCall(file, error instanceof Error ? error.message : String(error))
  }
}

/** The file's object; V8's message for a syntax error quotes the text, so only the place is told. */
function parsedConfig(text: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    const offset = jsonErrorOffset(text)
    throw new PolicyError(offset < 0 ? 'it is not valid JSON' : `it is not valid JSON (${lineAndColumn(text, offset)})`)
  }
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
}

function askForEveryCall(file: string, reason: string): RuleSet {
  const askAll: CompiledRule = { source: `invalid ${file}: ${reason}`, kind: 'ask', matches: () => true }
  return { deny: [], ask: [askAll], allow: [] }
}

type RulesOfWorkspace = (ws: string) => RuleSet | Promise<RuleSet>

/** Server rules first, then the workspace's, then the project grants of the database; the file and the database are read at once. */
export function ruleSource(server: RuleSet, workspace: RulesOfWorkspace, grants: RulesOfWorkspace): RuleSource {
  return async function rulesInForce(ws) {
    const [own, granted] = await Promise.all([workspace(ws), grants(ws)])
    return [server, own, granted]
  }
}
