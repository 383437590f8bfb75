/**
 * @module Deleting a session: its rows (records, events, approvals, grants, todos, artifact
 * rows) go in one transaction, then the artifact files those rows name; the background
 * commands kept in memory after they ended, the files it read, the mode it left for plan
 * mode and its answered approvals go too, and its short-lived links are revoked. Refused while the session has work going
 * on, which would go on writing for it. Its live streams end, and a new session of the same
 * id starts over at event 1.
 */
import { rm, rmdir } from 'node:fs/promises'
import path from 'node:path'
import type { AuditActor } from '../contracts/audit.js'
import { ToolexecError } from '../contracts/errors.js'
import type { Logger } from 'pino'
import type { Store } from '../contracts/store.js'
import type { BackgroundTaskRegistry } from '../executor/background-tasks.js'
import type { StorageRoom } from '../contracts/storage-room.js'
import type { EventBus } from './event-bus.js'
import type { EventJournal } from './event-journal.js'
import type { LiveSessions } from './live-sessions.js'
import type { SessionPermissionBroker } from './session-broker.js'
import { isWithin } from '../paths/locations.js'

/** What deleting a session touches. */
export interface DeletionParts {
  readonly store: Pick<Store, 'sessions' | 'schedules' | 'artifacts' | 'tasks' | 'commit'>
  readonly journal: EventJournal
  /** Its reserve lets the delete be written on a full disk. */
  readonly storage: StorageRoom
  readonly live: LiveSessions
  readonly broker: SessionPermissionBroker
  readonly bus: EventBus
  readonly backgroundTasks: BackgroundTaskRegistry
  /** Forgets what the tools keep in memory of a deleted session (file reads, ended background commands, the mode before plan). */
  readonly forgetToolMemory: (sessionId: string) => void
  /** The folder every artifact file is under; deleting a session removes files only there. */
  readonly artifactRoot: string
  readonly logger: Logger
}

/** `by` is who deleted it, named in the audit entry that outlives the session. */
export async function deleteSession(ctx: DeletionParts, sessionId: string, by: AuditActor): Promise<void> {
  const session = await ctx.store.sessions.get(sessionId)
  if (session === undefined) throw new ToolexecError('API_ERR_SESSION_NOT_FOUND', [sessionId, ''])
  // A schedule accepted in this tick is written first, so that it counts as work going on.
  await ctx.journal.flush()
  const busy = await workGoingOn(ctx, sessionId)
  if (busy !== undefined) throw new ToolexecError('API_ERR_SESSION_BUSY', [sessionId, busy, sessionId])
  // A lost background task's output file is no artifact: it goes with the session too.
  const files = [...(await ctx.store.artifacts.pathsOfSession(sessionId)), ...(await ctx.store.tasks.outputPathsOf(sessionId))]
  // Its transaction appends to the WAL, which a full disk may leave no room to grow.
  await ctx.storage.writeWithReserve(() =>
    ctx.store.commit((unit) => {
      const at = new Date().toISOString()
      unit.sessions.delete(sessionId)
      // A new session may take the id: a link to this one must not open it.
      unit.keys.revokeLinksOf(sessionId, at)
      unit.audit.append({ at, kind: 'session.deleted', actor: by, sessionId, detail: { workspace: session.workspace } })
    }),
  )
  ctx.journal.forget(sessionId)
  ctx.live.forget(sessionId)
  ctx.broker.forgetSession(sessionId)
  ctx.forgetToolMemory(sessionId)
  ctx.bus.end(sessionId)
  await removeArtifactFiles(ctx, files)
}

async function workGoingOn(ctx: DeletionParts, sessionId: string): Promise<string | undefined> {
  if ((ctx.live.peek(sessionId)?.running ?? 0) > 0) return 'a schedule is running'
  if (ctx.backgroundTasks.list(sessionId).length > 0) return 'a background task is running'
  const unfinished = await ctx.store.schedules.unfinishedIdsOf(sessionId)
  // A schedule whose end a full disk keeps in memory has ended: its rows go with the session.
  const ending = ctx.journal.keptScheduleEnds(sessionId)
  if (unfinished.some((id) => !ending.has(id))) return 'a schedule has not ended'
  return undefined
}

/**
 * Removes the files the rows named, never anything outside the artifact folder, then each
 * emptied session folder (another session whose id sanitizes to the same folder keeps its own).
 */
async function removeArtifactFiles(ctx: DeletionParts, files: readonly string[]): Promise<void> {
  const root = path.resolve(ctx.artifactRoot)
  const inside = files.map((file) => path.resolve(file)).filter((file) => file !== root && isWithin(root, file))
  const folders = new Set(inside.map((file) => path.dirname(file)))
  for (const file of inside) await rm(file, { force: true }).catch((error: unknown) => warn(ctx, file, error))
  for (const folder of folders) await rmdir(folder).catch(() => {})
}

function warn(ctx: DeletionParts, file: string, error: unknown): void {
  ctx.logger.warn({ file, reason: error instanceof Error ? error.message : String(error) }, 'artifact file not removed')
}
