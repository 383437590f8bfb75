/**
 * @module Rules compiled once into matchers. A Bash rule matches a compound command only if
 * it matches every part (for allow); a deny or ask rule matches if it matches any part, and
 * a command that cannot be split safely counts as matched for deny and ask, never for allow.
 */
import os from 'node:os'
import path from 'node:path'
import picomatch from 'picomatch'
import type { AccessTarget } from '../contracts/tool-entry.js'
import { commandOf, fileTargetOf, urlOf } from '../contracts/access-target.js'
import { parseRule, RuleError, wildcardPieces, wildcardRegex, type ParsedRule } from './rule.js'

export type RuleKind = 'allow' | 'ask' | 'deny'

export interface RuleRequest {
  readonly toolName: string
  readonly input: unknown
  readonly workspace: string
  /** What the call touches, as its tool's entry declares it (accessTargetOf). */
  readonly target?: AccessTarget | undefined
}

export interface CommandSplitter {
  /**
   * The simple commands of a compound one, wrappers removed; undefined when unsafe to split.
   * For deny and ask rules it may add each part's variants with every leading assignment
   * removed, so that `FOO=1 rm -rf /` cannot hide from `Bash(rm *)`.
   */
  (command: string, kind?: RuleKind): string[] | undefined
}

export interface CompiledRule {
  readonly source: string
  readonly kind: RuleKind
  matches(request: RuleRequest): boolean
}

/**
 * A compound command's parts, each as a request of its own for allow rules to match (a
 * compound command no single rule covers is allowed when some rule allows each part);
 * undefined for a request that is not a command of two parts or more, or is unsafe to split.
 */
export function partRequestsOf(request: RuleRequest, split: CommandSplitter): RuleRequest[] | undefined {
  const command = commandOf(request)
  const parts = command === undefined ? undefined : split(command, 'allow')
  if (parts === undefined || parts.length < 2) return undefined
  return parts.map((part) => ({ ...request, input: { ...(request.input as object), command: part }, target: { kind: 'command', command: part } }))
}

/** The rule language's file categories: `Edit(glob)` covers every file write, `Read(glob)` every file read. */
const FILE_CATEGORY: Readonly<Record<string, 'read' | 'write'>> = { Edit: 'write', Read: 'read' }

export function compileRule(source: string, kind: RuleKind, split: CommandSplitter): CompiledRule {
  const rule = parseRule(source)
  const toolMatches = compileToolName(rule)
  const specifierMatches = compileSpecifier(rule, kind, split)
  return {
    source: rule.source,
    kind,
    matches: (request) => toolMatches(request) && specifierMatches(request),
  }
}

function compileToolName(rule: ParsedRule): (request: RuleRequest) => boolean {
  if (rule.tool.startsWith('mcp__')) {
    const pattern = rule.tool.includes('*') ? wildcardRegex(rule.tool) : undefined
    return ({ toolName: name }) => (pattern !== undefined ? pattern.test(name) : name === rule.tool || name.startsWith(`${rule.tool}__`))
  }
  const category = rule.specifier === undefined ? undefined : FILE_CATEGORY[rule.tool]
  if (category !== undefined) return (request) => fileTargetOf(request)?.access === category
  return (request) => request.toolName === rule.tool
}

function compileSpecifier(rule: ParsedRule, kind: RuleKind, split: CommandSplitter): (request: RuleRequest) => boolean {
  const specifier = rule.specifier
  if (specifier === undefined) return () => true
  if (rule.tool === 'Bash') return compileCommand(specifier, kind, split)
  if (rule.tool === 'WebFetch') return compileDomain(specifier.slice('domain:'.length))
  // A tool that names a file: the specifier is a path glob; other tools: a wildcard pattern over the input's JSON text.
  const pathMatches = compilePath(specifier)
  const regex = wildcardRegex(specifier)
  return (request) => (fileTargetOf(request) !== undefined ? pathMatches(request) : regex.test(JSON.stringify(request.input ?? null)))
}

function compileCommand(pattern: string, kind: RuleKind, split: CommandSplitter): (request: RuleRequest) => boolean {
  const normalized = normalizeSpaces(pattern.endsWith(':*') ? `${pattern.slice(0, -2)}*` : pattern)
  const regex = wildcardRegex(normalized, true)
  const partMatches = (part: string): boolean => regex.test(normalizeSpaces(part))
  // A pattern without a wildcard is one exact command, compound or not (an approval's grant).
  const pieces = wildcardPieces(normalized)
  const exact = pieces.length === 1 ? pieces[0] : undefined
  return (request) => {
    const command = commandOf(request)
    if (command === undefined) return false
    if (exact !== undefined && normalizeSpaces(command) === exact) return true
    const parts = split(command, kind)
    if (parts === undefined || parts.length === 0) return kind !== 'allow'
    return kind === 'allow' ? parts.every(partMatches) : parts.some(partMatches)
  }
}

function normalizeSpaces(text: string): string {
  return text.trim().replace(/\s+/g, ' ')
}

function compileDomain(host: string): (request: RuleRequest) => boolean {
  if (host.length === 0) throw new RuleError('WebFetch(domain:) needs a host')
  const regex = wildcardRegex(host.toLowerCase())
  return (request) => {
    const url = urlOf(request)
    if (url === undefined || !URL.canParse(url)) return false
    return regex.test(new URL(url).hostname.toLowerCase())
  }
}

/** Claude Code's spellings: `~/x` in the home directory, `//x` absolute; `/x` is absolute too. */
function expandGlob(glob: string): string {
  if (glob.startsWith('~/')) return `${os.homedir().split(path.sep).join('/')}/${glob.slice(2)}`
  return glob.startsWith('//') ? glob.slice(1) : glob
}

function compilePath(written: string): (request: RuleRequest) => boolean {
  const glob = expandGlob(written)
  const absolute = path.isAbsolute(glob)
  const matcher = picomatch(absolute ? glob : glob.replace(/^\.\//, ''), { dot: true })
  return (request) => {
    const target = fileTargetOf(request)?.path
    if (target === undefined) return false
    const full = path.resolve(request.workspace, target)
    if (absolute) return matcher(full)
    const relative = path.relative(request.workspace, full)
    if (relative.startsWith('..') || path.isAbsolute(relative)) return false
    return matcher(relative.split(path.sep).join('/'))
  }
}
