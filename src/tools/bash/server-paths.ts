/**
 * @module The server's own files, which no confined command may see wherever they are: the
 * data directory, the config file's whole directory (env files an operator keeps beside it),
 * any file a `TOOLEXEC_*` variable names, and the server's install (the package this code
 * runs from, its dependencies with it). The sandbox shows only an allow-list of system
 * directories besides what a session is given (sandbox.ts); these are masked inside those.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface ServerPathsOptions {
  readonly dataDir: string
  /** Where artifact files are kept, when outside the data directory. */
  readonly artifactDir?: string | undefined
  readonly configFile?: string | undefined
  readonly env?: NodeJS.ProcessEnv | undefined
}

/** Directories too wide to hide whole: a config file there hides itself and its kin only. */
const WIDE_DIRS = new Set(['/', '/etc', '/opt', '/usr', '/usr/local', '/usr/local/etc', '/srv', '/var', '/home', '/root', '/tmp'])

/** The package root: this file is src/tools/bash/ or dist/tools/bash/ below it. */
export function installRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const root = path.resolve(here, '..', '..', '..')
  return existsSync(path.join(root, 'package.json')) ? root : here
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/** In a wide directory: the file, and those beside it named like it, like an env file, or for toolexec. */
function configKin(file: string): string[] {
  const dir = path.dirname(file)
  const stem = path.basename(file).split('.')[0] ?? ''
  const kin = (name: string): boolean => (stem.length > 0 && name.startsWith(stem)) || /toolexec|\.env$|^\.env/i.test(name)
  try {
    return [
      file,
      ...readdirSync(dir)
        .filter(kin)
        .map((name) => path.join(dir, name)),
    ]
  } catch {
    return [file]
  }
}

function configPaths(configFile: string | undefined): string[] {
  if (configFile === undefined) return []
  const file = path.resolve(configFile)
  const dir = path.dirname(file)
  return WIDE_DIRS.has(dir) ? configKin(file) : [dir]
}

/** Files named by TOOLEXEC_* variables (the config file is one; a directory such as the workspace is not). */
function envFiles(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => name.startsWith('TOOLEXEC_') && value !== undefined && path.isAbsolute(value) && isFile(value))
    .map(([, value]) => value as string)
}

/** Every path of the server's own that confined commands must not see. */
export function serverPaths(options: ServerPathsOptions): string[] {
  const paths = [
    path.resolve(options.dataDir),
    ...(options.artifactDir === undefined ? [] : [path.resolve(options.artifactDir)]),
    ...configPaths(options.configFile),
    installRoot(),
    ...envFiles(options.env ?? {}),
  ]
  return [...new Set(paths)]
}
