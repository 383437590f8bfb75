/**
 * @module The two directories a start needs, checked before anything opens them, so that a
 * wrong one is refused in one line naming it rather than by a stack trace from deep inside.
 */
import { mkdirSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs'
import path from 'node:path'
import type { ServerConfig } from './config.js'
import { StartupError } from './contracts/errors.js'

export function checkStartPaths(config: Pick<ServerConfig, 'dataDir' | 'workspace'>): void {
  checkDataDir(config.dataDir)
  checkWorkspace(config.workspace)
}

/** The data directory, created when missing, must be a directory this process can write in. */
function checkDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true })
  } catch (error) {
    throw new StartupError('CONF_ERR_DATA_DIR', [dir, whyNotCreated(dir, error)])
  }
  if (!statSync(dir).isDirectory()) throw new StartupError('CONF_ERR_DATA_DIR', [dir, 'it is a file, not a directory'])
  // Writing a file asks exactly what the database will ask: modes, ACLs and read-only mounts alike.
  const probe = path.join(dir, `.write-check-${process.pid}`)
  try {
    writeFileSync(probe, '')
    rmSync(probe)
  } catch (error) {
    throw new StartupError('CONF_ERR_DATA_DIR', [dir, `it is not writable (${codeOf(error)})`])
  }
}

function whyNotCreated(dir: string, error: unknown): string {
  const code = codeOf(error)
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    const file = firstNonDirectory(dir)
    if (file !== undefined) return file === dir ? 'it is a file, not a directory' : `${file} is a file, not a directory`
  }
  if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') return `it cannot be created there (${code})`
  return error instanceof Error ? error.message : String(error)
}

/** The nearest of `dir` and its parents that exists and is not a directory. */
function firstNonDirectory(dir: string): string | undefined {
  for (let current = dir; path.dirname(current) !== current; current = path.dirname(current)) {
    // Below a file, stat fails with ENOTDIR rather than finding nothing: go up either way.
    const stat = statOrUndefined(current)
    if (stat !== undefined) return stat.isDirectory() ? undefined : current
  }
  return undefined
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file)
  } catch {
    return undefined
  }
}

function checkWorkspace(dir: string): void {
  let stat
  try {
    stat = statSync(dir)
  } catch (error) {
    throw new StartupError('CONF_ERR_WORKSPACE', [dir, codeOf(error) === 'ENOENT' ? 'does not exist' : `cannot be read (${codeOf(error)})`])
  }
  if (!stat.isDirectory()) throw new StartupError('CONF_ERR_WORKSPACE', [dir, 'is not a directory'])
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : 'unknown error'
}
