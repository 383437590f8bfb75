/**
 * @module The built-in tools' ports as the server provides them: todos and the permission
 * mode kept in SQLite, file reads remembered per session, background tasks shared with the
 * executor.
 */
import { mkdirSync } from 'node:fs'
import type { PermissionMode, PermissionQuery, PermissionService } from '../contracts/ports.js'
import type { BackgroundTaskRegistry } from '../executor/background-tasks.js'
import { ShellTaskStore } from '../tools/bash/shell-tasks.js'
import type { SqliteStore } from '../storage/sqlite-store.js'
import {
  DEFAULT_WEB_FETCH,
  InMemoryFileStateStore,
  type BuiltinServices,
  type SessionControl,
  type TodoItem,
  type TodoStore,
  type WebFetchSettings,
} from '../tools/services.js'

export function sqliteTodos(store: SqliteStore): TodoStore {
  return {
    get: (sessionId) => {
      const todos = store.getTodos(sessionId)
      return Array.isArray(todos) ? (todos as TodoItem[]) : []
    },
    set: (sessionId, todos) => store.setTodos(sessionId, todos, new Date().toISOString()),
  }
}

export function sqliteSessionControl(store: SqliteStore): SessionControl {
  return {
    getPermissionMode: (sessionId) => store.permissionModeOf(sessionId) ?? 'default',
    setPermissionMode: (sessionId, mode) => store.setPermissionMode(sessionId, mode),
  }
}

/** The session's mode as stored now, so EnterPlanMode takes effect for the calls after it. */
export function withLiveMode(base: PermissionService, session: SessionControl): PermissionService {
  return {
    evaluate: function evaluateInLiveMode(query: PermissionQuery) {
      const mode: PermissionMode = session.getPermissionMode(query.sessionId)
      return base.evaluate(mode === query.mode ? query : { ...query, mode })
    },
  }
}

export function serverToolServices(
  store: SqliteStore,
  backgroundTasks: BackgroundTaskRegistry,
  memoryDir: string,
  webFetch: Partial<WebFetchSettings> = {},
): BuiltinServices & { shellTasks: ShellTaskStore } {
  mkdirSync(memoryDir, { recursive: true })
  return {
    memoryDir,
    shellTasks: new ShellTaskStore(),
    fileState: new InMemoryFileStateStore(),
    todos: sqliteTodos(store),
    session: sqliteSessionControl(store),
    backgroundTasks,
    webFetch: { ...DEFAULT_WEB_FETCH, ...webFetch },
  }
}
