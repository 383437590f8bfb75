/**
 * @module The project rules an approval may add, as choices: this exact command; the command's
 * prefix, one per part of a compound command; each part exactly. A prefix is written
 * `Bash(npm test *)`, not `Bash(npm test:*)`: the matcher reads `:*` as a bare string prefix,
 * which would also allow `npm test-all`, while ` *` stops at a word (and still allows a bare
 * `npm test`). Allow
 * rules match a compound command only when every part is matched (rule-matcher.ts), so a
 * choice holds a rule for every part, and a choice is offered only when its rules, compiled as
 * the server compiles them, allow the command shown again: never one that stops at the first
 * part. Other tools have one choice, the narrowest rule.
 */
import type { RuleChoice } from '../contracts/events.js'
import { ruleCommandSplitter } from './command-splitter.js'
import { compileRule, partRequestsOf, type CommandSplitter, type CompiledRule, type RuleRequest } from './rule-matcher.js'
import { escapeWildcards } from './rule.js'
import { parseShell, type ShellWord } from './shell-parse.js'

const BASH = 'Bash'
/** Programs whose first word names what they do (`git status`, `npm test`). */
const SUBCOMMAND_PROGRAMS: ReadonlySet<string> = new Set([
  'apt',
  'apt-get',
  'brew',
  'bun',
  'cargo',
  'composer',
  'deno',
  'docker',
  'dotnet',
  'gh',
  'git',
  'go',
  'gradle',
  'helm',
  'kubectl',
  'make',
  'mvn',
  'npm',
  'pip',
  'pip3',
  'pnpm',
  'podman',
  'poetry',
  'systemctl',
  'terraform',
  'uv',
  'yarn',
])
/** Subcommands that run a named script: `npm run lint` is the prefix, not `npm run`. */
const SCRIPT_RUNNERS: ReadonlySet<string> = new Set(['run', 'run-script', 'exec'])
const PLAIN_PROGRAM = /^[A-Za-z0-9_.+-]+$/
const PLAIN_SUBCOMMAND = /^[a-z][a-z0-9:_-]*$/

const bashRule = (command: string): string => `${BASH}(${escapeWildcards(command.trim().replace(/\s+/g, ' '))})`

/** The words of a part up to what it does: `git status`, `npm run lint`, `touch`; undefined when the program is not plain. */
export function commandPrefix(part: string): string | undefined {
  const parsed = parseShell(part)
  if (!parsed.ok || parsed.commands.length !== 1) return undefined
  const words = parsed.commands[0]?.words ?? []
  const plain = (word: ShellWord | undefined, pattern: RegExp): word is ShellWord => word !== undefined && !word.expands && !word.pattern && !word.quoted && !word.assignment && pattern.test(word.text)
  const [program, first, second] = words
  if (!plain(program, PLAIN_PROGRAM)) return undefined
  const prefix = [program.text]
  if (SUBCOMMAND_PROGRAMS.has(program.text) && plain(first, PLAIN_SUBCOMMAND)) {
    prefix.push(first.text)
    if (SCRIPT_RUNNERS.has(first.text) && plain(second, PLAIN_SUBCOMMAND)) prefix.push(second.text)
  }
  return prefix.join(' ')
}

/** Whether these allow rules, together, allow the request again: one rule for all of it, or a rule for each part. */
export function allowsAgain(rules: readonly string[], request: RuleRequest, split: CommandSplitter = ruleCommandSplitter): boolean {
  const compiled: CompiledRule[] = rules.map((rule) => compileRule(rule, 'allow', split))
  if (compiled.some((rule) => rule.matches(request))) return true
  const parts = partRequestsOf(request, split)
  return parts !== undefined && parts.every((part) => compiled.some((rule) => rule.matches(part)))
}

function commandChoices(command: string, split: CommandSplitter): RuleChoice[] {
  const exact: RuleChoice = { kind: 'exact', rules: [bashRule(command)] }
  const parts = split(command, 'allow')
  if (parts === undefined || parts.length === 0) return [exact]
  const prefixes = [...new Set(parts.map((part) => commandPrefix(part)).map((prefix, index) => (prefix === undefined ? bashRule(parts[index] as string) : `${BASH}(${prefix} *)`)))]
  const segments = [...new Set(parts.map(bashRule))]
  const choices: RuleChoice[] = [exact, { kind: 'prefix', rules: prefixes }]
  if (parts.length > 1) choices.push({ kind: 'segments', rules: segments })
  return choices
}

const sameRules = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((rule, index) => rule === b[index])

/**
 * The choices of a request that asks, first the one an approval adds by default (its
 * `suggestedRule`). Only a choice whose rules allow this very request again is kept.
 * @example ruleChoicesOf('Bash', { command: 'git status && rm -rf ./tmp' }, ...) // exact, [git status:*, rm:*], [git status, rm -rf ./tmp]
 */
export function ruleChoicesOf(toolName: string, input: unknown, suggestedRule: string, workspace = '/', split: CommandSplitter = ruleCommandSplitter): RuleChoice[] {
  const command = toolName === BASH && typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined
  if (typeof command !== 'string' || suggestedRule !== bashRule(command)) return [{ kind: 'exact', rules: [suggestedRule] }]
  const request: RuleRequest = { toolName, input, workspace, target: { kind: 'command', command } }
  const kept: RuleChoice[] = []
  for (const choice of commandChoices(command, split)) {
    if (kept.some((earlier) => sameRules(earlier.rules, choice.rules))) continue
    if (allowsAgain(choice.rules, request, split)) kept.push(choice)
  }
  return kept
}

/** The choice among a request's whose rules are `rules`, or undefined: a person may add only what was offered. */
export function offeredChoice(choices: readonly RuleChoice[], rules: readonly string[]): RuleChoice | undefined {
  return choices.find((choice) => sameRules(choice.rules, rules))
}
