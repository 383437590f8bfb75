/** @module The tool registry: entries checked once at registration, looked up by name. */
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Value } from '@sinclair/typebox/value'
import { ToolexecError } from '../contracts/errors.js'
import type { ToolRegistry } from '../contracts/ports.js'
import { ToolDescriptorSchema, type ToolEntry } from '../contracts/tool-entry.js'

const checkDescriptor = TypeCompiler.Compile(ToolDescriptorSchema)

export class InMemoryToolRegistry implements ToolRegistry {
  readonly #entries = new Map<string, ToolEntry>()

  constructor(entries: readonly ToolEntry[] = []) {
    for (const entry of entries) this.register(entry)
  }

  register(entry: ToolEntry): void {
    assertValidEntry(entry)
    if (this.#entries.has(entry.name)) throw new ToolexecError('EXEC_ERR_DUPLICATE_TOOL', [entry.name])
    this.#entries.set(entry.name, entry)
  }

  unregister(name: string): boolean {
    return this.#entries.delete(name)
  }

  get(name: string): ToolEntry | undefined {
    return this.#entries.get(name)
  }

  list(): readonly ToolEntry[] {
    return [...this.#entries.values()]
  }
}

/** Entries come from config files and HTTP too, so they are checked, not trusted. */
function assertValidEntry(entry: ToolEntry): void {
  const name = String((entry as { name?: unknown }).name)
  if (typeof entry.handler !== 'function') throw new ToolexecError('EXEC_ERR_INVALID_TOOL', [name, 'handler must be a function'])
  const candidate: unknown = entry
  if (checkDescriptor.Check(candidate)) return
  const first = [...Value.Errors(ToolDescriptorSchema, candidate)][0]
  const where = first === undefined ? 'invalid descriptor' : `${first.path || '/'} ${first.message}`
  throw new ToolexecError('EXEC_ERR_INVALID_TOOL', [name, where])
}
