/**
 * @module The paths a Bash command may name, for the workspace check: a read-only command
 * runs without approval, so `cat /etc/passwd`, `ls ../other` or `cat link/x` (a symlink out)
 * must ask like a Read outside does. Every argument is taken as a possible path, resolved
 * against the workspace (the caller also follows symlinks); so are the value of `--opt=value`,
 * a value attached to short options (`-f/etc/x`, `-rf../x`) and redirection targets. A word
 * whose value is only known at run time (`$HOME/x`) may be anywhere, so it counts as outside.
 */
import os from 'node:os'
import path from 'node:path'
import { parseShell, type ShellWord } from './shell-parse.js'

/** Device files that hold nothing of anyone's. */
const HARMLESS: ReadonlySet<string> = new Set(['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/tty'])

export type BashPath = { readonly kind: 'path'; readonly word: string; readonly absolute: string } | { readonly kind: 'unknown'; readonly word: string }

/** The paths `command` names, resolved against `workspace`; empty when it cannot be parsed (the mode decides then). */
export function pathsOfCommand(command: string, workspace: string): BashPath[] {
  const parsed = parseShell(command)
  if (!parsed.ok) return []
  const found: BashPath[] = []
  for (const simple of parsed.commands) {
    for (const word of simple.words.slice(1)) addCandidate(found, word, workspace)
    for (const redirect of simple.redirects) addCandidate(found, redirect.target, workspace)
  }
  return found
}

function addCandidate(found: BashPath[], word: ShellWord, workspace: string): void {
  if (word.assignment) return
  for (const text of candidateTexts(word.text)) {
    if (word.expands) {
      if (text.includes('$')) found.push({ kind: 'unknown', word: word.text })
      continue
    }
    const absolute = text.startsWith('~') ? homePath(text) : path.resolve(workspace, text)
    if (absolute === undefined) found.push({ kind: 'unknown', word: word.text })
    else if (!HARMLESS.has(absolute)) found.push({ kind: 'path', word: word.text, absolute })
  }
}

/** What in a word may be a path: the word itself, or for an option the values it may carry. */
function candidateTexts(text: string): string[] {
  if (!text.startsWith('-')) return [text]
  const values = [optionValue(text), text.startsWith('--') ? undefined : attachedValue(text)]
  return values.filter((value): value is string => value !== undefined && value !== '')
}

function optionValue(text: string): string | undefined {
  const equals = text.indexOf('=')
  return equals === -1 ? undefined : text.slice(equals + 1)
}

/**
 * The value after the letters of `-f/etc/x` or `-rf../x`. Which letter takes a value is the
 * program's business, so the rest after all of them is taken, when it looks like a path: a
 * separator in it (a lone `/`, as in `cut -d/`, is a delimiter), or a leading `~` or `.`.
 */
function attachedValue(text: string): string | undefined {
  const rest = /^-[A-Za-z]+([^A-Za-z].*)$/s.exec(text)?.[1]
  if (rest === undefined || /^\/+$/.test(rest)) return undefined
  return rest.includes('/') || rest.startsWith('~') || rest.startsWith('.') ? rest : undefined
}

/** `~` and `~/x` are under the home folder; `~user` is someone else's, somewhere unknown. */
function homePath(text: string): string | undefined {
  if (text === '~') return os.homedir()
  return text.startsWith('~/') ? path.join(os.homedir(), text.slice(2)) : undefined
}
