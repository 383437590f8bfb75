/**
 * @module What a call touches, read from its tool's entry (ToolEntry.accessTarget): the
 * permission rules and checks look at a file read or written, a command, a URL, never at
 * a tool's name.
 */
import type { AccessTarget, ToolEntry } from './tool-entry.js'

interface Targeted {
  readonly target?: AccessTarget | undefined
}

/** The tool's declared access target of this input; undefined when it declares none or cannot tell. */
export function accessTargetOf(entry: Pick<ToolEntry, 'accessTarget'> | undefined, input: unknown): AccessTarget | undefined {
  // An input that does not fit the schema (an early look before validation) touches nothing known.
  try {
    const target = entry?.accessTarget?.(input)
    return target !== undefined && typeof textOf(target) === 'string' ? target : undefined
  } catch {
    return undefined
  }
}

function textOf(target: AccessTarget): unknown {
  switch (target.kind) {
    case 'file':
      return target.path
    case 'command':
      return target.command
    case 'url':
      return target.url
  }
}

export function fileTargetOf(request: Targeted): (AccessTarget & { kind: 'file' }) | undefined {
  return request.target?.kind === 'file' ? request.target : undefined
}

export function commandOf(request: Targeted): string | undefined {
  return request.target?.kind === 'command' ? request.target.command : undefined
}

export function urlOf(request: Targeted): string | undefined {
  return request.target?.kind === 'url' ? request.target.url : undefined
}

/** A write to a file: what acceptEdits allows, what may touch a steering file. */
export function writesFile(request: Targeted): boolean {
  return fileTargetOf(request)?.access === 'write'
}
