/**
 * @module How permission rules see a Bash command: its simple commands, wrappers removed.
 * Allow rules see through only what cannot change what runs; deny and ask rules also see
 * each part with every leading assignment removed (`FOO=1 rm -rf /`, `env LD_PRELOAD=x rm`),
 * so that an assignment never hides a command from them.
 */
import { splitCompoundCommand, stripWrappers } from './bash-classifier.js'
import type { CommandSplitter } from './rule-matcher.js'
import { parseShell } from './shell-parse.js'

/** Wrappers inside wrappers (`env A=1 timeout 5 B=2 rm`): a bound, not a limit anyone meets. */
const MAX_LAYERS = 8

export const ruleCommandSplitter: CommandSplitter = function splitForRules(command, kind = 'allow') {
  const parts = splitCompoundCommand(command)?.map(stripWrappers)
  if (parts === undefined || kind === 'allow') return parts
  return parts.flatMap((part) => {
    const bare = seeThroughAssignments(part)
    return bare === part ? [part] : [part, bare]
  })
}

function seeThroughAssignments(part: string): string {
  let current = part
  for (let layer = 0; layer < MAX_LAYERS; layer++) {
    const next = stripWrappers(dropAssignments(current))
    if (next === current) return current
    current = next
  }
  return current
}

/** `A=1 B=2 cmd` -> `cmd`; `env [-i] [-u NAME] A=1 cmd` -> `cmd`; anything else as it is. */
function dropAssignments(part: string): string {
  const parsed = parseShell(part)
  const words = parsed.ok && parsed.commands.length === 1 ? (parsed.commands[0]?.words ?? []) : []
  const env = words[0] !== undefined && !words[0].expands && words[0].text === 'env'
  let index = env ? 1 : 0
  for (let word = words[index]; word !== undefined; word = words[index]) {
    if (word.assignment) index++
    else if (env && (word.text === '-u' || word.text === '--unset')) index += 2
    else if (env && word.text.startsWith('-')) index++
    else break
  }
  const program = words[index]
  return index === 0 || program === undefined ? part : part.slice(program.start).trim()
}
