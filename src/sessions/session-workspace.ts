/**
 * @module Where a new session works: its workspace resolved against the server's default,
 * and never inside the server's own install directory (under `npm start` the default, the
 * current directory, is that checkout: a session there would have its tools edit the server).
 */
import { realpathSync } from 'node:fs'
import path from 'node:path'
import { ToolexecError } from '../contracts/errors.js'
import { isWithin } from '../paths/locations.js'
import { installRoot } from '../tools/bash/server-paths.js'

/** The install directory holding `dir`, or undefined when `dir` lies outside it. */
export function installHolding(dir: string): string | undefined {
  const root = installRoot()
  return isWithin(root, realOrResolved(dir)) ? root : undefined
}

/** The absolute workspace of a new session; refused (400) inside the install directory. */
export function resolveWorkspace(defaultWorkspace: string, given: string | undefined): string {
  const workspace = path.resolve(defaultWorkspace, given ?? '.')
  const root = installHolding(workspace)
  if (root !== undefined) throw new ToolexecError('API_ERR_WORKSPACE_IN_INSTALL', [workspace, root])
  return workspace
}

/** A symlink to the install is the install: compare where the path really is, when it exists. */
function realOrResolved(dir: string): string {
  try {
    return realpathSync(dir)
  } catch {
    return path.resolve(dir)
  }
}
