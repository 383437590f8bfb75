/**
 * @module The bubblewrap (bwrap) command line that confines one Bash command, built the way
 * Codex's Linux sandbox is: an empty root in which only the system's directories appear,
 * read-only (/usr, /bin, /lib*, /etc without its secrets, /opt); the workspace and the memory
 * directory at their real paths, the only user files a command can see; an empty private
 * `$HOME` and `/tmp`; `/proc` of a pid namespace of its own; a minimal `/dev`; no network
 * unless allowed; a user namespace of its own and no capabilities, as an unprivileged uid where
 * there is one (sandbox-user.ts); the kernel's settings in /proc read-only (kernel-knobs.ts);
 * a seccomp filter (seccomp-filter.ts). The server's own files are masked wherever they lie
 * within what is shown (server-paths.ts).
 *
 * What may be written follows how the call was allowed (WriteGrant): nothing for a command
 * run unasked because it is read-only; the workspace for one a person or a rule allowed, with
 * the files that steer the agent and git (`.git/config`, `.git/hooks`, AGENTS.md, CLAUDE.md,
 * `.toolexec/`) bound read-only again over it unless that write itself was approved; those of
 * them that are directories get an empty read-only one where they do not exist yet.
 */
import { existsSync, lstatSync, readdirSync, readlinkSync, readFileSync, realpathSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { WriteGrant } from '../../contracts/ports.js'
import { kernelKnobArgs } from './kernel-knobs.js'
import { seccompProgram } from './seccomp-filter.js'
import { mayReach, type SandboxUser } from './sandbox-user.js'

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
  /** Server files never shown even when under a visible path (server-paths.ts). */
  readonly hiddenPaths?: readonly string[] | undefined
  /** The unprivileged uid bwrap is started as; undefined: the server's own (sandbox-user.ts). */
  readonly user?: SandboxUser | undefined
}

/** How one command is confined: bwrap's command line, who starts it, and its seccomp filter. */
export interface Confinement {
  /** bwrap and its options up to and including `--`. */
  readonly argv: readonly string[]
  readonly user: SandboxUser | undefined
  /** What to write on SECCOMP_FD, when argv names it. */
  readonly seccomp: Buffer | undefined
}

/** The descriptor on which bwrap reads the seccomp filter (--seccomp). */
export const SECCOMP_FD = 7

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

function maskArgs(file: string, user: SandboxUser | undefined): string[] {
  // A path the command's uid cannot reach needs no mask, and bwrap could not place one.
  if (user !== undefined && !mayReach(user, file)) return []
  const kind = kindOf(file)
  if (kind === 'dir') return ['--tmpfs', file, '--remount-ro', file]
  return kind === 'file' ? ['--ro-bind', '/dev/null', file] : []
}

interface Shown {
  /** What the command is given on purpose: the workspace, the memory directory, extra paths. */
  readonly given: readonly string[]
  /** Everything it sees: those and the system directories. */
  readonly visible: readonly string[]
  readonly user: SandboxUser | undefined
}

/**
 * Masks for a server path: whole where it is visible; where it holds (or is) something given
 * on purpose, its other entries one by one, so the deeper of the two always wins. A server path
 * that is itself the workspace stays: the workspace is what the session asked for.
 */
function hideArgs(file: string, shown: Shown, args: string[]): void {
  const inner = shown.given.filter((given) => isWithinOrSame(file, given))
  if (inner.length === 0) {
    if (shown.visible.some((dir) => isWithinOrSame(dir, file))) args.push(...maskArgs(file, shown.user))
    return
  }
  if (inner.includes(file) || kindOf(file) !== 'dir') return
  let names: string[]
  try {
    names = readdirSync(file)
  } catch {
    return
  }
  for (const name of names) {
    const entry = path.join(file, name)
    if (kindOf(entry) === 'link' || inner.some((given) => isWithinOrSame(given, entry))) continue
    hideArgs(entry, shown, args)
  }
}

/**
 * The steering files and git's, read-only over a writable workspace. One that does not exist
 * yet cannot be bound, so `.toolexec` and (in a repository) `.git/hooks` get an empty read-only
 * directory, and `.git/config` an empty read-only file (git reads it as none): bwrap leaves the
 * empty mount point in the workspace. AGENTS.md and CLAUDE.md get none, which would leave an
 * empty file in the user's repository: the server never reads them.
 */
function steeringArgs(workspace: string): string[] {
  const args: string[] = []
  const inRepository = kindOf(path.join(workspace, '.git')) === 'dir'
  for (const relative of PROTECTED_WORKSPACE_PATHS) {
    const full = path.join(workspace, relative)
    if (kindOf(full) !== undefined) args.push('--ro-bind-try', full, full)
    else if (relative === '.toolexec' || (relative === '.git/hooks' && inRepository)) args.push('--tmpfs', full, '--remount-ro', full)
    else if (relative === '.git/config' && inRepository) args.push('--ro-bind', '/dev/null', full)
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
  const { user } = plan
  const reachable = (dir: string): boolean => user === undefined || mayReach(user, dir)
  const extraRead = plan.settings.readOnlyPaths.filter((p) => path.isAbsolute(p) && reachable(p))
  const extraWrite = plan.settings.writablePaths.filter((p) => path.isAbsolute(p) && reachable(p))
  const memoryDir = plan.memoryDir !== undefined && existsSync(plan.memoryDir) && reachable(plan.memoryDir) ? plan.memoryDir : undefined
  const given = [workspace, ...(memoryDir === undefined ? [] : [realOrSelf(memoryDir)]), ...extraRead, ...extraWrite]
  const home = sandboxHome(given)
  const args = ['bwrap', ...systemArgs]
  if (plan.settings.network) args.push(...resolverArgs())
  args.push('--tmpfs', '/tmp')
  if (home !== FALLBACK_HOME) args.push('--tmpfs', home)
  else args.push('--dir', home)
  args.push('--dev', '/dev', '--unshare-user', '--disable-userns', '--unshare-pid', '--proc', '/proc', ...kernelKnobArgs())
  args.push('--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try')
  if (!plan.settings.network) args.push('--unshare-net')
  // No --die-with-parent: bwrap's monitor exits as soon as the command does, and with that
  // option would take down what the command left running (R21, R32). The wrapper's lifeline
  // (process-tree.ts) kills the sandbox's init when the server is gone, however it ended, and
  // the kernel then ends every process of its pid namespace.
  args.push('--cap-drop', 'ALL')
  if (seccompProgram() !== undefined) args.push('--seccomp', String(SECCOMP_FD))
  // A new session would take the command out of its process group (no SIGTERM first, see
  // process-tree.ts): only when there is a terminal to protect.
  if (hasControllingTerminal()) args.push('--new-session')
  for (const dir of extraRead) args.push('--ro-bind-try', dir, dir)
  for (const dir of extraWrite) args.push(writable ? '--bind-try' : '--ro-bind-try', dir, dir)
  bindBoth(writable ? '--bind' : '--ro-bind', plan.workspace, args)
  if (memoryDir !== undefined) bindBoth(writable ? '--bind' : '--ro-bind', memoryDir, args)
  if (writable && plan.writes !== 'steering') args.push(...steeringArgs(workspace))
  const shown: Shown = { given, visible: [...SYSTEM_PATHS, ...given], user }
  for (const file of plan.hiddenPaths ?? []) hideArgs(realOrSelf(file), shown, args)
  args.push('--remount-ro', '/', '--setenv', 'HOME', home, '--chdir', plan.cwd, '--')
  return args
}

/** The whole confinement of one command: see bwrapArguments. */
export function confinementFor(plan: ConfinementPlan): Confinement {
  return { argv: bwrapArguments(plan), user: plan.user, seccomp: seccompProgram() }
}

/**
 * What runs inside: every signal back to its default, because bwrap itself is started with
 * SIGTERM ignored (so that a SIGTERM to the group reaches the command, not only its sandbox).
 */
export const INSIDE_PREFIX: readonly string[] = ['env', '--default-signal', 'bash', '-c']
