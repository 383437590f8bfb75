/**
 * @module Whether Bash commands can be confined here, found once by starting the sandbox for
 * real (bwrap running `true` with the very options, uid and seccomp filter a command gets).
 * bwrap may be missing, the kernel or container may refuse user namespaces, the system may not
 * be Linux: then nothing is confined, and the Bash tool lets only what its strict classifier
 * proves read-only run unasked (strict-read-only.ts). A root server also tries the sandbox as
 * an unprivileged uid (nobody's): where that cannot start, every command runs as root without
 * capabilities in a user namespace of its own, and the status says so.
 */
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process'
import { chownSync, closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ToolexecError } from '../../contracts/errors.js'
import { confinementFor, DEFAULT_SANDBOX_SETTINGS, INSIDE_PREFIX, SECCOMP_FD } from './sandbox.js'
import { identityOfServer, type SandboxIdentity, type SandboxUser } from './sandbox-user.js'

/** `off`: never confine; `auto`: confine where possible; `required`: refuse to start without. */
export type SandboxMode = 'off' | 'auto' | 'required'
export const SANDBOX_MODES: readonly SandboxMode[] = ['off', 'auto', 'required']

export interface SandboxStatus {
  readonly mode: SandboxMode
  /** Every Bash command runs in the sandbox. */
  readonly confined: boolean
  /** Why not, when not; when confined, why commands run as root (runsAs `root`). */
  readonly reason?: string | undefined
  /** Who confined commands run as (sandbox-user.ts). */
  readonly runsAs?: SandboxIdentity | undefined
}

const IDENTITY_TEXT: Readonly<Record<SandboxIdentity, string>> = {
  server: "as the server's own uid in a user namespace",
  'workspace-owner': "as the workspace owner's uid in a user namespace (a workspace root owns: root without capabilities)",
  root: 'as root without capabilities in a user namespace',
}

/** One line for logs: `confined as …`, or `off: <why>`. */
export function sandboxSummary(status: SandboxStatus): string {
  if (!status.confined) return `off: ${status.reason ?? 'unavailable'}`
  const identity = `confined ${IDENTITY_TEXT[status.runsAs ?? identityOfServer()]}`
  return status.reason === undefined ? identity : `${identity}: ${status.reason}`
}

const PROBE_TIMEOUT_MS = 10_000
/** What starting bwrap gave, whichever mode asked first. */
let bwrapProbe: SandboxStatus | undefined
let bwrapProbing: Promise<SandboxStatus> | undefined

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? ''
}

/** The uid a root server tries: nobody's, which owns nothing. */
const PROBE_USER: SandboxUser = { uid: 65534, gid: 65534 }

interface ProbeRun {
  readonly command: string
  readonly args: string[]
  readonly options: SpawnOptions & SandboxUser
  /** Closes and removes what the run was given. */
  cleanup(): void
}

/** A sandbox running `true` in a fresh workspace owned by `user` (the server's own when undefined), ready to start. */
function prepareRun(user: SandboxUser | undefined): ProbeRun {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'toolexec-sandbox-probe-'))
  const filter = path.join(os.tmpdir(), `${path.basename(workspace)}.bpf`)
  let filterFd: number | 'ignore' = 'ignore'
  const cleanup = (): void => {
    if (filterFd !== 'ignore') closeSync(filterFd)
    rmSync(filter, { force: true })
    rmSync(workspace, { recursive: true, force: true })
  }
  try {
    if (user !== undefined) chownSync(workspace, user.uid, user.gid)
    const confinement = confinementFor({ workspace, cwd: workspace, writes: 'workspace', settings: DEFAULT_SANDBOX_SETTINGS, user })
    if (confinement.seccomp !== undefined) {
      writeFileSync(filter, confinement.seccomp, { mode: 0o600 })
      filterFd = openSync(filter, 'r')
    }
    const [command, ...args] = confinement.argv
    const stdio = Array.from({ length: SECCOMP_FD + 1 }, (_, fd) => (fd === SECCOMP_FD ? filterFd : fd === 1 || fd === 2 ? 'pipe' : 'ignore'))
    return { command: command ?? 'bwrap', args: [...args, ...INSIDE_PREFIX, 'true'], options: { stdio, ...user } as SpawnOptions & SandboxUser, cleanup }
  } catch (error) {
    cleanup()
    throw error
  }
}

/** Undefined when the sandbox ran, else why not. */
function verdict(error: Error | undefined, status: number | null, signal: NodeJS.Signals | null, stderr: string): string | undefined {
  if (error !== undefined) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' ? 'bwrap (bubblewrap) is not installed' : `bwrap failed to start: ${error.message}`
  }
  return status === 0 ? undefined : `bwrap cannot start a sandbox here: ${firstLine(stderr) || `exit ${status ?? signal}`}`
}

/** Starts the sandbox once and waits for it, holding the thread; undefined when it ran. */
function startOnce(user: SandboxUser | undefined): string | undefined {
  const run = prepareRun(user)
  try {
    const result = spawnSync(run.command, run.args, { ...run.options, encoding: 'utf8', timeout: PROBE_TIMEOUT_MS })
    return verdict(result.error, result.status, result.signal, result.stderr)
  } finally {
    run.cleanup()
  }
}

/** The same as startOnce, the thread free while bwrap runs. */
async function startOnceAsync(user: SandboxUser | undefined): Promise<string | undefined> {
  const run = prepareRun(user)
  try {
    return await new Promise((resolve) => {
      const child = spawn(run.command, run.args, run.options)
      let stderr = ''
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      child.stdout?.resume()
      const timer = setTimeout(() => {
        child.kill()
        resolve(verdict(Object.assign(new Error(`spawnSync ${run.command} ETIMEDOUT`), { code: 'ETIMEDOUT' }), null, null, stderr))
      }, PROBE_TIMEOUT_MS)
      child.on('error', (error) => {
        clearTimeout(timer)
        resolve(verdict(error, null, null, stderr))
      })
      child.on('close', (status, signal) => {
        clearTimeout(timer)
        resolve(verdict(undefined, status, signal, stderr))
      })
    })
  } finally {
    run.cleanup()
  }
}

function tryBwrap(): SandboxStatus {
  if (process.platform !== 'linux') return notLinux()
  const failed = startOnce(undefined)
  if (failed !== undefined) return { mode: 'auto', confined: false, reason: failed }
  if (identityOfServer() === 'server') return { mode: 'auto', confined: true, runsAs: 'server' }
  return asOwnerStatus(startOnce(PROBE_USER))
}

async function tryBwrapAsync(): Promise<SandboxStatus> {
  if (process.platform !== 'linux') return notLinux()
  const failed = await startOnceAsync(undefined)
  if (failed !== undefined) return { mode: 'auto', confined: false, reason: failed }
  if (identityOfServer() === 'server') return { mode: 'auto', confined: true, runsAs: 'server' }
  return asOwnerStatus(await startOnceAsync(PROBE_USER))
}

function notLinux(): SandboxStatus {
  return { mode: 'auto', confined: false, reason: `no sandbox on ${process.platform} (bubblewrap is Linux only)` }
}

function asOwnerStatus(asOwner: string | undefined): SandboxStatus {
  if (asOwner === undefined) return { mode: 'auto', confined: true, runsAs: 'workspace-owner' }
  return { mode: 'auto', confined: true, runsAs: 'root', reason: `an unprivileged uid cannot start one (${asOwner})` }
}

/**
 * The sandbox as `mode` has it, probed once per process.
 * @throws ToolexecError CONF_ERR_SANDBOX_UNAVAILABLE when `required` and none can start
 */
export function probeSandbox(mode: SandboxMode = 'auto'): SandboxStatus {
  if (mode === 'off') return OFF
  bwrapProbe ??= tryBwrap()
  return statusIn(mode, bwrapProbe)
}

/**
 * The same answer as probeSandbox, bwrap started without holding the thread, so that a start
 * loads its modules meanwhile; the status is known, as before, before any tool is made.
 * @throws ToolexecError CONF_ERR_SANDBOX_UNAVAILABLE when `required` and none can start
 */
export async function probeSandboxAsync(mode: SandboxMode = 'auto'): Promise<SandboxStatus> {
  if (mode === 'off') return OFF
  bwrapProbing ??= bwrapProbe === undefined ? tryBwrapAsync() : Promise.resolve(bwrapProbe)
  bwrapProbe ??= await bwrapProbing
  return statusIn(mode, bwrapProbe)
}

const OFF: SandboxStatus = { mode: 'off', confined: false, reason: 'turned off (TOOLEXEC_SANDBOX=off)' }

function statusIn(mode: SandboxMode, probed: SandboxStatus): SandboxStatus {
  const status: SandboxStatus = { ...probed, mode }
  if (mode === 'required' && !status.confined) throw new ToolexecError('CONF_ERR_SANDBOX_UNAVAILABLE', [status.reason], { context: { reason: status.reason } })
  return status
}
