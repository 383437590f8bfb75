/**
 * @module Who a confined command runs as. Never root with the power of root: bwrap always
 * starts a user namespace of its own with no capabilities. A server that is not root starts it
 * as itself. A root server starts it as the workspace's owner (uid and gid of the workspace
 * directory, no supplementary groups), so the command is an unprivileged host uid and what it
 * creates belongs to that owner; a workspace root owns, or one its owner cannot reach, runs as
 * host uid 0 in that namespace (bubblewrap has no idmapped mounts that could let another uid
 * write it), held by read-only kernel settings and the seccomp filter instead.
 */
import { statSync } from 'node:fs'
import path from 'node:path'

/** `server`: the server's own uid (not root); `workspace-owner`: a root server, as each workspace's owner; `root`: a root server where an unprivileged uid cannot start a sandbox. */
export type SandboxIdentity = 'server' | 'workspace-owner' | 'root'

export interface SandboxUser {
  readonly uid: number
  readonly gid: number
}

const SEARCH_OWNER = 0o100
const SEARCH_GROUP_OR_OTHER = 0o011

/** How this server starts sandboxes, before any probe: what `identity` can be at most. */
export function identityOfServer(): SandboxIdentity {
  return process.getuid?.() === 0 ? 'workspace-owner' : 'server'
}

/**
 * Whether `user` may be able to walk to `target` (search permission on every directory above
 * it). An upper bound: for another uid the group and other bits together bound what any ACL
 * entry grants, so a false is certain and a true may still be refused (bwrap then fails closed).
 */
export function mayReach(user: SandboxUser, target: string): boolean {
  let dir = path.dirname(path.resolve(target))
  for (;;) {
    let info
    try {
      info = statSync(dir)
    } catch {
      return false
    }
    const bits = info.uid === user.uid ? SEARCH_OWNER : SEARCH_GROUP_OR_OTHER
    if ((info.mode & bits) === 0) return false
    const parent = path.dirname(dir)
    if (parent === dir) return true
    dir = parent
  }
}

/** The uid and gid a command in `workspace` is started as; undefined: the server's own. */
export function commandUser(identity: SandboxIdentity | undefined, workspace: string): SandboxUser | undefined {
  if (identity !== 'workspace-owner' || process.getuid?.() !== 0) return undefined
  let info
  try {
    info = statSync(workspace)
  } catch {
    return undefined
  }
  if (info.uid === 0) return undefined
  const user = { uid: info.uid, gid: info.gid }
  return mayReach(user, workspace) ? user : undefined
}
