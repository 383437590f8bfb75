/**
 * @module Whether Bash commands can be confined here, found once by starting the sandbox for
 * real (bwrap running `true` with the very options a command gets). bwrap may be missing, the
 * kernel or container may refuse user namespaces, the system may not be Linux: then nothing
 * is confined, and the Bash tool lets only what its strict classifier proves read-only run
 * unasked (strict-read-only.ts).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ToolexecError } from '../../contracts/errors.js'
import { bwrapArguments, DEFAULT_SANDBOX_SETTINGS, INSIDE_PREFIX } from './sandbox.js'

/** `off`: never confine; `auto`: confine where possible; `required`: refuse to start without. */
export type SandboxMode = 'off' | 'auto' | 'required'
export const SANDBOX_MODES: readonly SandboxMode[] = ['off', 'auto', 'required']

export interface SandboxStatus {
  readonly mode: SandboxMode
  /** Every Bash command runs in the sandbox. */
  readonly confined: boolean
  /** Why not, when not. */
  readonly reason?: string | undefined
}

/** One line for logs and /healthz: `confined`, or `off: <why>`. */
export function sandboxSummary(status: SandboxStatus): string {
  return status.confined ? 'confined' : `off: ${status.reason ?? 'unavailable'}`
}

const PROBE_TIMEOUT_MS = 10_000
/** What starting bwrap gave, whichever mode asked first. */
let bwrapProbe: SandboxStatus | undefined

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? ''
}

function tryBwrap(): SandboxStatus {
  if (process.platform !== 'linux') return { mode: 'auto', confined: false, reason: `no sandbox on ${process.platform} (bubblewrap is Linux only)` }
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'toolexec-sandbox-probe-'))
  try {
    const [command, ...args] = bwrapArguments({ workspace, cwd: workspace, writes: 'workspace', settings: DEFAULT_SANDBOX_SETTINGS })
    const run = spawnSync(command ?? 'bwrap', [...args, ...INSIDE_PREFIX, 'true'], { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] })
    if (run.error !== undefined) {
      const code = (run.error as NodeJS.ErrnoException).code
      return { mode: 'auto', confined: false, reason: code === 'ENOENT' ? 'bwrap (bubblewrap) is not installed' : `bwrap failed to start: ${run.error.message}` }
    }
    if (run.status === 0) return { mode: 'auto', confined: true }
    return { mode: 'auto', confined: false, reason: `bwrap cannot start a sandbox here: ${firstLine(run.stderr) || `exit ${run.status ?? run.signal}`}` }
  } finally {
    rmSync(workspace, { recursive: true, force: true })
  }
}

/**
 * The sandbox as `mode` has it, probed once per process.
 * @throws ToolexecError CONF_ERR_SANDBOX_UNAVAILABLE when `required` and none can start
 */
export function probeSandbox(mode: SandboxMode = 'auto'): SandboxStatus {
  if (mode === 'off') return { mode, confined: false, reason: 'turned off (TOOLEXEC_SANDBOX=off)' }
  bwrapProbe ??= tryBwrap()
  const status: SandboxStatus = { ...bwrapProbe, mode }
  if (mode === 'required' && !status.confined) throw new ToolexecError('CONF_ERR_SANDBOX_UNAVAILABLE', [status.reason], { context: { reason: status.reason } })
  return status
}
