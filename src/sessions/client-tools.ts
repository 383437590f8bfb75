/**
 * @module HTTP tools that clients add with `POST /tools`: registered and stored together,
 * removed from both by `DELETE /tools/:name`, and registered again at every start, so that a
 * restart forgets none of them (nor a call of one awaiting approval across it); on a database
 * several servers share, the others register and unregister them too. Tools of the
 * config file belong to the file: they come back from it at every start, and a DELETE
 * removes one only until then.
 */
import type { Logger } from 'pino'
import type { AuditActor } from '../contracts/audit.js'
import { ToolexecError } from '../contracts/errors.js'
import type { HttpToolDefinition } from '../contracts/tool-config.js'
import type { ToolEntry } from '../contracts/tool-entry.js'
import type { Store } from '../contracts/store.js'
import { createHttpTool, isHttpTool } from '../tools/http-tool/index.js'
import type { InMemoryToolRegistry } from '../tools/registry.js'
import { parseHttpToolDefinition } from '../tools/tool-config.js'

const STORED = 'the database'

export class ClientTools {
  readonly #registry: InMemoryToolRegistry
  readonly #store: Pick<Store, 'rules' | 'commit'>
  readonly #logger: Logger
  /** The stored tools registered here. */
  readonly #stored = new Set<string>()
  /** Stored tools left out (a name taken, a check failed). */
  readonly #refused = new Set<string>()

  constructor(registry: InMemoryToolRegistry, store: Pick<Store, 'rules' | 'commit'>, logger: Logger) {
    this.#registry = registry
    this.#store = store
    this.#logger = logger
  }

  /**
   * @throws ToolexecError EXEC_ERR_INVALID_TOOL for a bad definition, EXEC_ERR_DUPLICATE_TOOL for a name in use
   */
  async add(definition: HttpToolDefinition, by: AuditActor): Promise<ToolEntry> {
    const entry = createHttpTool(definition)
    this.#registry.register(entry)
    try {
      await this.#store.commit((unit) => {
        const at = new Date().toISOString()
        unit.rules.putClientTool(definition.name, definition, at)
        // Its name only: a definition's url and headers may carry a credential of the service it calls.
        unit.audit.append({ at, kind: 'tool.added', actor: by, sessionId: null, detail: { name: definition.name } })
      })
    } catch (error) {
      this.#registry.unregister(definition.name)
      throw error
    }
    // Only once stored: a sync running meanwhile would otherwise unregister it as removed.
    this.#stored.add(definition.name)
    return entry
  }

  /**
   * @throws ToolexecError API_ERR_TOOL_NOT_FOUND, or API_ERR_TOOL_NOT_DELETABLE for a tool that is not an HTTP tool
   */
  async remove(name: string, by: AuditActor): Promise<void> {
    const entry = this.#registry.get(name)
    if (entry === undefined) throw new ToolexecError('API_ERR_TOOL_NOT_FOUND', [name])
    if (!isHttpTool(entry)) throw new ToolexecError('API_ERR_TOOL_NOT_DELETABLE', [name])
    await this.#store.commit((unit) => {
      unit.rules.deleteClientTool(name)
      unit.audit.append({ at: new Date().toISOString(), kind: 'tool.removed', actor: by, sessionId: null, detail: { name } })
    })
    this.#registry.unregister(name)
    this.#stored.delete(name)
  }

  /**
   * Registers every stored tool again. One whose name another tool now has (the config file
   * took it), or that no longer passes the checks, is left out with a warning and kept, so
   * nothing is lost while the config is being fixed.
   */
  restore(): Promise<void> {
    return this.sync()
  }

  /**
   * Registers the stored tools not registered here yet and unregisters those no longer stored:
   * on a database several servers share, another server added or removed them.
   */
  async sync(): Promise<void> {
    const stored = new Map((await this.#store.rules.clientTools()).map((tool) => [nameOf(tool), tool]))
    for (const name of [...this.#stored]) {
      if (stored.has(name)) continue
      this.#registry.unregister(name)
      this.#stored.delete(name)
    }
    for (const [name, tool] of stored) if (!this.#stored.has(name) && !this.#refused.has(name)) this.#register(name, tool)
  }

  #register(name: string, stored: unknown): void {
    try {
      this.#registry.register(createHttpTool(parseHttpToolDefinition(stored, STORED, `client_http_tools (${name})`)))
      this.#stored.add(name)
    } catch (error) {
      // Warned once: it stays out until the next start.
      this.#refused.add(name)
      this.#logger.warn({ tool: name, reason: error instanceof Error ? error.message : String(error) }, 'client tool not restored')
    }
  }
}

function nameOf(stored: unknown): string {
  const name = typeof stored === 'object' && stored !== null ? (stored as { name?: unknown }).name : undefined
  return typeof name === 'string' ? name : '(unnamed)'
}
