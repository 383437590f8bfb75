/**
 * @module The built-in tools' ports as the server provides them: todos and the permission
 * mode kept in SQLite, file reads remembered per session, background tasks shared with the
 * executor and recorded in the store; what is kept in memory goes when its session is deleted.
 */
import { mkdirSync } from 'node:fs'
import { defaultCommandEnvironment, type CommandEnvironment } from '../processes/command-environment.js'
import type { PermissionMode, PermissionQuery, PermissionService } from '../contracts/ports.js'
import type { BackgroundTaskRegistry } from '../executor/background-tasks.js'
import { ShellTaskStore } from '../tools/bash/shell-tasks.js'
import { forgetModeBeforePlan } from '../tools/enter-plan-mode/plan-mode-memory.js'
import type { Store } from '../contracts/store.js'
import { storedTaskRecords } from './task-records.js'
import { DEFAULT_WEB_FETCH, InMemoryFileStateStore, type BuiltinServices, type SessionControl, type TodoItem, type TodoStore, type WebFetchSettings } from '../tools/services.js'

type SessionStore = Pick<Store, 'sessions' | 'commit'>
type ServerStore = Pick<Store, 'sessions' | 'tasks' | 'commit'>

export function storedTodos(store: SessionStore): TodoStore {
  return {
    get: async (sessionId) => {
      const todos = await store.sessions.todos(sessionId)
      return Array.isArray(todos) ? (todos as TodoItem[]) : []
    },
    set: (sessionId, todos) => store.commit((unit) => unit.sessions.setTodos(sessionId, todos, new Date().toISOString())),
  }
}

export function storedSessionControl(store: SessionStore): SessionControl {
  return {
    getPermissionMode: async (sessionId) => (await store.sessions.get(sessionId))?.permissionMode ?? 'default',
    setPermissionMode: (sessionId, mode) => store.commit((unit) => unit.sessions.setPermissionMode(sessionId, mode)),
  }
}

/** The session's mode as stored now, so EnterPlanMode takes effect for the calls after it. */
export function withLiveMode(base: PermissionService, session: SessionControl): PermissionService {
  return {
    evaluate: async function evaluateInLiveMode(query: PermissionQuery) {
      const mode: PermissionMode = await session.getPermissionMode(query.sessionId)
      return base.evaluate(mode === query.mode ? query : { ...query, mode })
    },
  }
}

export interface ServerToolServices extends BuiltinServices {
  readonly shellTasks: ShellTaskStore
  readonly commandEnvironment: CommandEnvironment
  /** Forgets what the tools keep in memory for a deleted session: a new session of that id starts with none of it. */
  readonly forgetSession: (sessionId: string) => void
}

export function serverToolServices(
  store: ServerStore,
  nodeId: string,
  backgroundTasks: BackgroundTaskRegistry,
  memoryDir: string,
  webFetch: Partial<WebFetchSettings> = {},
  commandEnvironment: CommandEnvironment = defaultCommandEnvironment(),
): ServerToolServices {
  mkdirSync(memoryDir, { recursive: true })
  const shellTasks = new ShellTaskStore({ records: storedTaskRecords(store, nodeId) })
  const fileState = new InMemoryFileStateStore()
  const session = storedSessionControl(store)
  return {
    memoryDir,
    shellTasks,
    commandEnvironment,
    fileState,
    todos: storedTodos(store),
    session,
    backgroundTasks,
    webFetch: { ...DEFAULT_WEB_FETCH, ...webFetch },
    forgetSession: (sessionId) => {
      shellTasks.forgetSession(sessionId)
      fileState.forgetSession(sessionId)
      forgetModeBeforePlan(session, sessionId)
    },
  }
}
