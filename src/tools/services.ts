/**
 * @module What the built-in tools need from the host, as ports on ToolServices. The server
 * provides real implementations (src/sessions/runtime.ts); tests may pass their own real ones.
 */
import type { BackgroundTasks, PermissionMode } from '../contracts/ports.js'

/** What a session has read, so that a write never lands on a file it has not seen (no blind writes). */
export interface FileReadRecord {
  readonly path: string
  readonly mtimeMs: number
  readonly size: number
  readonly sha256: string
}

export interface FileStateStore {
  recordRead(sessionId: string, record: FileReadRecord): void
  lastRead(sessionId: string, path: string): FileReadRecord | undefined
  forget(sessionId: string, path: string): void
}

export interface TodoItem {
  readonly content: string
  readonly status: 'pending' | 'in_progress' | 'completed'
  readonly activeForm?: string | undefined
}

/** Asynchronous: the server keeps todos in its database. `set` resolves once they are stored. */
export interface TodoStore {
  get(sessionId: string): Promise<TodoItem[]>
  set(sessionId: string, todos: readonly TodoItem[]): Promise<void>
}

/** Asynchronous: the server keeps the mode in its database. `setPermissionMode` resolves once it is stored. */
export interface SessionControl {
  getPermissionMode(sessionId: string): Promise<PermissionMode>
  setPermissionMode(sessionId: string, mode: PermissionMode): Promise<void>
}

export interface WebFetchSettings {
  /** Private, loopback and link-local addresses are refused unless this is true. */
  readonly allowPrivateNetwork: boolean
  readonly maxResponseBytes: number
  readonly userAgent: string
}

export interface BuiltinServices {
  readonly fileState: FileStateStore
  readonly todos: TodoStore
  readonly session: SessionControl
  readonly backgroundTasks: BackgroundTasks
  readonly webFetch: WebFetchSettings
  /** Where Markdown memory files live (A9); file tools may write there without a workspace grant. */
  readonly memoryDir?: string | undefined
}

declare module '../contracts/tool-context.js' {
  interface ToolServices extends BuiltinServices {}
}

export class InMemoryFileStateStore implements FileStateStore {
  readonly #readsBySession = new Map<string, Map<string, FileReadRecord>>()

  recordRead(sessionId: string, record: FileReadRecord): void {
    let reads = this.#readsBySession.get(sessionId)
    if (reads === undefined) {
      reads = new Map()
      this.#readsBySession.set(sessionId, reads)
    }
    reads.set(record.path, record)
  }

  lastRead(sessionId: string, path: string): FileReadRecord | undefined {
    return this.#readsBySession.get(sessionId)?.get(path)
  }

  forget(sessionId: string, path: string): void {
    this.#readsBySession.get(sessionId)?.delete(path)
  }

  /** Every read of the session: it was deleted, and a new session of that id has read nothing. */
  forgetSession(sessionId: string): void {
    this.#readsBySession.delete(sessionId)
  }
}

export class InMemoryTodoStore implements TodoStore {
  readonly #todos = new Map<string, TodoItem[]>()

  get(sessionId: string): Promise<TodoItem[]> {
    return Promise.resolve([...(this.#todos.get(sessionId) ?? [])])
  }

  set(sessionId: string, todos: readonly TodoItem[]): Promise<void> {
    this.#todos.set(sessionId, [...todos])
    return Promise.resolve()
  }
}

export const DEFAULT_WEB_FETCH: WebFetchSettings = {
  allowPrivateNetwork: false,
  maxResponseBytes: 10 * 1024 * 1024,
  userAgent: 'toolexec/0.1 (+WebFetch)',
}
