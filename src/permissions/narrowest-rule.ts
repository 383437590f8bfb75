/** @module The narrowest rule that allows a request again: the grant an approval records by default. */
import path from 'node:path'
import { fileTargetOf, writesFile } from '../contracts/access-target.js'
import type { RuleRequest } from './rule-matcher.js'
import { escapeWildcards } from './rule.js'

/** The narrowest rule that allows this request again: the grant an approval records. */
export function narrowestRule(request: RuleRequest): string {
  const { target: access, toolName } = request
  if (access?.kind === 'command') return `${toolName}(${escapeWildcards(access.command.trim().replace(/\s+/g, ' '))})`
  if (access?.kind === 'url' && URL.canParse(access.url)) return `${toolName}(domain:${new URL(access.url).hostname})`
  const file = fileTargetOf(request)
  const full = file === undefined ? undefined : path.resolve(request.workspace, file.path)
  if (full !== undefined) {
    const relative = relativeInside(request.workspace, full)
    const shown = relative === undefined ? full : relative.split(path.sep).join('/')
    return `${writesFile(request) ? 'Edit' : 'Read'}(${escapeGlob(shown)})`
  }
  return toolName
}

/** A path as a glob that matches only itself: `[draft].md` is not a character class. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}()!+@\\]/g, '\\$&')
}

/** `full` relative to the workspace, or undefined when it lies outside. */
export function relativeInside(workspace: string, full: string): string | undefined {
  const relative = path.relative(workspace, full)
  return relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative
}
