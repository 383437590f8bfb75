/**
 * @module The bubblewrap (bwrap) command line that confines one Bash command, built the way
 * Codex's Linux sandbox is: an empty root in which only the system's directories appear,
 * read-only (/usr, /bin, /lib*, /etc without its secrets, /opt); the workspace and the memory
 * directory at their real paths, the only user files a command can see; an empty private
 * `$HOME` and `/tmp`; `/proc` of a pid namespace of its own; a minimal `/dev`; no network
 * unless allowed; no capabilities, even for root.
 *
 * What may be written follows how the call was allowed (WriteGrant): nothing for a command
 * run unasked because it is read-only; the workspace for one a person or a rule allowed, with
 * the files that steer the agent and git (`.git/config`, `.git/hooks`, AGENTS.md, CLAUDE.md,
 * `.toolexec/`) bound read-only again over it unless that write itself was approved.
 */
import { existsSync, lstatSync, readdirSync, readlinkSync, readFileSync, realpathSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { WriteGrant } from '../../contracts/ports.js'

export interface SandboxSettings {
  /** More paths a command may read (absolute; missing ones are skipped). */
  readonly readOnlyPaths: readonly string[]
  /** More paths an allowed command may write; read-only for a command run unasked. */
  readonly writablePaths: readonly string[]
  /** Network access; off by default. */
  readonly network: boolean
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = Object.freeze({ readOnlyPaths: [], writablePaths: [], network: false })

export interface ConfinementPlan {
  readonly workspace: string
  readonly cwd: string
  readonly writes: WriteGrant
  readonly settings: SandboxSettings
  readonly memoryDir?: string | undefined
  /** Server files never shown even when under a visible path (its data directory, config file). */
  readonly hiddenPaths?: readonly string[] | undefined
}

/** The files and directories in the workspace that steer the agent or run programs through git. */
export const PROTECTED_WORKSPACE_PATHS: readonly string[] = ['.git/config', '.git/hooks', 'AGENTS.md', 'CLAUDE.md', '.toolexec']

const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix']
/** Readable by root only on the host, and of no use to a command. */
const SECRET_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/security/opasswd']
const SECRET_DIRS = ['/etc/ssl/private']
/** Where a command's `$HOME` is when the server's own cannot be used. */
const FALLBACK_HOME = '/tmp/home'

function kindOf(file: string): 'dir' | 'file' | 'link' | undefined {
  try {
    const info = lstatSync(file)
    if (info.isSymbolicLink()) return 'link'
    return info.isDirectory() ? 'dir' : 'file'
  } catch {
    return undefined
  }
}

function sshHostKeys(): string[] {
  try {
    return readdirSync('/etc/ssh')
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => `/etc/ssh/${name}`)
  } catch {
    return []
  }
}

/** The part that depends only on the machine: computed once. */
let systemArgs: readonly string[] | undefined

function buildSystemArgs(): string[] {
  const args: string[] = []
  for (const dir of SYSTEM_PATHS) {
    const kind = kindOf(dir)
    if (kind === 'link') args.push('--symlink', readlinkSync(dir), dir)
    else if (kind === 'dir') args.push('--ro-bind', dir, dir)
  }
  for (const file of [...SECRET_FILES, ...sshHostKeys()]) if (kindOf(file) === 'file') args.push('--ro-bind', '/dev/null', file)
  for (const dir of SECRET_DIRS) if (kindOf(dir) === 'dir') args.push('--tmpfs', dir, '--remount-ro', dir)
  return args
}

/** /etc/resolv.conf is often a link into /run (systemd-resolved): with network, its target too. */
function resolverArgs(): string[] {
  if (kindOf('/etc/resolv.conf') !== 'link') return []
  try {
    const target = path.dirname(realpathSync('/etc/resolv.conf'))
    return target.startsWith('/etc') ? [] : ['--ro-bind-try', target, target]
  } catch {
    return []
  }
}

function isWithinOrSame(parent: string, child: string): boolean {
  const relative = path.relative(parent, child)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file)
  } catch {
    return path.resolve(file)
  }
}

/**
 * The command's `$HOME`: an empty directory at the server's own home path, so that paths
 * written with it stay the same; elsewhere when that path is `/`, a system directory or holds
 * (or lies in) a place the command sees.
 */
export function sandboxHome(visible: readonly string[], home = os.homedir()): string {
  if (!path.isAbsolute(home) || home === '/') return FALLBACK_HOME
  if (SYSTEM_PATHS.some((dir) => isWithinOrSame(dir, home)) || isWithinOrSame('/tmp', home)) return FALLBACK_HOME
  // A workspace under $HOME is fine (it is bound over the empty home); one that holds it is not.
  return visible.some((dir) => isWithinOrSame(dir, home)) ? FALLBACK_HOME : home
}

/** Whether the server has a controlling terminal, which a command could type into (TIOCSTI). */
function hasControllingTerminal(): boolean {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[4]) !== 0
  } catch {
    return false
  }
}

function bindBoth(option: string, given: string, args: string[]): void {
  const real = realOrSelf(given)
  args.push(option, real, real)
  // Paths stay the same: the name the session uses, when a link leads to the real one.
  if (real !== path.resolve(given)) args.push(option, real, path.resolve(given))
}

/** A hidden path that holds the workspace (tests often use one directory for both) stays. */
function hideArgs(hidden: readonly string[], visible: readonly string[], workspace: string): string[] {
  const args: string[] = []
  for (const file of hidden) {
    const real = realOrSelf(file)
    if (isWithinOrSame(real, workspace) || !visible.some((dir) => isWithinOrSame(dir, real))) continue
    const kind = kindOf(real)
    if (kind === 'dir') args.push('--tmpfs', real, '--remount-ro', real)
    else if (kind === 'file') args.push('--ro-bind', '/dev/null', real)
  }
  return args
}

/**
 * bwrap and its options, up to and including `--`: what follows is the command to run.
 * @example spawn('bwrap', [...bwrapArguments(plan).slice(1), 'bash', '-c', command])
 */
export function bwrapArguments(plan: ConfinementPlan): string[] {
  systemArgs ??= buildSystemArgs()
  const workspace = realOrSelf(plan.workspace)
  const writable = plan.writes !== 'none'
  const extraRead = plan.settings.readOnlyPaths.filter((p) => path.isAbsolute(p))
  const extraWrite = plan.settings.writablePaths.filter((p) => path.isAbsolute(p))
  const visible = [workspace, ...(plan.memoryDir === undefined ? [] : [realOrSelf(plan.memoryDir)]), ...extraRead, ...extraWrite]
  const home = sandboxHome(visible)
  const args = ['bwrap', ...systemArgs]
  if (plan.settings.network) args.push(...resolverArgs())
  args.push('--tmpfs', '/tmp')
  if (home !== FALLBACK_HOME) args.push('--tmpfs', home)
  else args.push('--dir', home)
  args.push('--dev', '/dev', '--unshare-pid', '--proc', '/proc', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try')
  if (!plan.settings.network) args.push('--unshare-net')
  // No --die-with-parent: bwrap's monitor exits as soon as the command does, and with that
  // option would take down what the command left running (R21, R32). The wrapper's lifeline
  // (process-tree.ts) kills the sandbox's init when the server is gone, however it ended, and
  // the kernel then ends every process of its pid namespace.
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL')
  // A new session would take the command out of its process group (no SIGTERM first, see
  // process-tree.ts): only when there is a terminal to protect.
  if (hasControllingTerminal()) args.push('--new-session')
  for (const dir of extraRead) args.push('--ro-bind-try', dir, dir)
  for (const dir of extraWrite) args.push(writable ? '--bind-try' : '--ro-bind-try', dir, dir)
  bindBoth(writable ? '--bind' : '--ro-bind', plan.workspace, args)
  if (plan.memoryDir !== undefined && existsSync(plan.memoryDir)) bindBoth(writable ? '--bind' : '--ro-bind', plan.memoryDir, args)
  if (writable && plan.writes !== 'steering') {
    for (const relative of PROTECTED_WORKSPACE_PATHS) {
      const full = path.join(workspace, relative)
      args.push('--ro-bind-try', full, full)
    }
  }
  args.push(...hideArgs(plan.hiddenPaths ?? [], visible, workspace))
  args.push('--remount-ro', '/', '--setenv', 'HOME', home, '--chdir', plan.cwd, '--')
  return args
}

/**
 * What runs inside: every signal back to its default, because bwrap itself is started with
 * SIGTERM ignored (so that a SIGTERM to the group reaches the command, not only its sandbox).
 */
export const INSIDE_PREFIX: readonly string[] = ['env', '--default-signal', 'bash', '-c']
