/**
 * @module A background task as the store keeps it (a Bash command started with
 * `run_in_background`): which call started it, which server runs it, where its output goes, and
 * how it ended. A task dies with the process that runs it; its record outlives both, so that
 * another server (or this one after a restart) can tell a task that died with its server from
 * one that never existed.
 */

/** `lost`: the server that ran it stopped before it ended (found by crash recovery or by the server that took its session over). */
export type BackgroundTaskStatus = 'running' | 'completed' | 'failed' | 'killed' | 'lost'

export interface BackgroundTaskRecord {
  readonly sessionId: string
  readonly id: string
  /** The call that started it. */
  readonly callId: string
  readonly command: string
  readonly description: string
  /** The server that runs (or ran) it. */
  readonly nodeId: string
  /** The file its output is written to while it runs, then its artifact when one was kept; null when none was. */
  readonly outputPath: string | null
  readonly status: BackgroundTaskStatus
  readonly exitCode: number | null
  readonly startedAt: string
  readonly endedAt: string | null
}

/** A task as it is first recorded: running, not ended. */
export type NewBackgroundTask = Omit<BackgroundTaskRecord, 'status' | 'exitCode' | 'endedAt'>

/** How a task ended in the process that ran it. */
export interface BackgroundTaskEnd {
  readonly status: Exclude<BackgroundTaskStatus, 'running' | 'lost'>
  readonly exitCode: number | null
  /** Its artifact, when its output was kept as one; else null. */
  readonly outputPath: string | null
  readonly endedAt: string
}

/**
 * The records of a server's background tasks, as the tools write and read them (the store
 * behind it, each write its own unit of work: on a shared database, fenced by the session's lease).
 */
export interface BackgroundTaskRecords {
  /** Durable before it resolves. */
  started(task: Omit<NewBackgroundTask, 'nodeId'>): Promise<void>
  ended(sessionId: string, taskId: string, end: BackgroundTaskEnd): Promise<void>
  get(sessionId: string, taskId: string): Promise<BackgroundTaskRecord | undefined>
}
