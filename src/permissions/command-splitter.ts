/** @module How permission rules see a Bash command: its simple commands, wrappers removed. */
import { splitCompoundCommand, stripWrappers } from './bash-classifier.js'
import type { CommandSplitter } from './rule-matcher.js'

export const ruleCommandSplitter: CommandSplitter = function splitForRules(command) {
  return splitCompoundCommand(command)?.map(stripWrappers)
}
