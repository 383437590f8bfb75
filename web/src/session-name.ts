/** @module What a person calls a session: its label, else its workspace's folder and when it started. */
import type { Session } from '../../src/contracts/api.js'

/** The last folder of a path ("/home/ann/shop/" → "shop"); the path itself when it has none. */
export function folderOf(workspace: string): string {
  const parts = workspace.split(/[\\/]+/).filter((part) => part !== '')
  return parts.at(-1) ?? workspace
}

export function startedText(createdAt: string): string {
  return new Date(createdAt).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })
}

export function sessionName(session: Pick<Session, 'label' | 'workspace' | 'createdAt'>): string {
  return session.label ?? `${folderOf(session.workspace)} · ${startedText(session.createdAt)}`
}
