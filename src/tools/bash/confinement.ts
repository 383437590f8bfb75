/**
 * @module The sandbox of one Bash call: from the server's probe, the session's sandbox
 * settings, the memory directory and how the call was allowed (ctx.writes), the bwrap
 * command line it runs under, or none when nothing can confine it.
 */
import type { ToolCallContext } from '../../contracts/ports.js'
import { confinementFor, DEFAULT_SANDBOX_SETTINGS, type Confinement, type SandboxSettings } from './sandbox.js'
import type { SandboxStatus } from './sandbox-probe.js'
import { commandUser } from './sandbox-user.js'

/** What the server knows of sandboxes besides the probe. */
export interface SandboxServices {
  /** The settings in force for a session: the config file's, with the session's own added (read from its record). */
  settingsOf(sessionId: string): Promise<SandboxSettings>
  /** Server files a command must never see, even under a path it may see. */
  readonly hiddenPaths: readonly string[]
}

declare module '../../contracts/tool-context.js' {
  interface ToolServices {
    /** Bash's sandbox settings. */
    sandbox: SandboxServices
  }
}

/** How this call is confined (bwrap's options, its uid, its seccomp filter), or undefined when it runs unconfined. */
export async function confinementOf(status: SandboxStatus, ctx: ToolCallContext, workspace: string): Promise<Confinement | undefined> {
  if (!status.confined) return undefined
  const services = ctx.services.sandbox
  return confinementFor({
    workspace,
    cwd: workspace,
    writes: ctx.writes ?? 'none',
    settings: (await services?.settingsOf(ctx.sessionId)) ?? DEFAULT_SANDBOX_SETTINGS,
    memoryDir: ctx.services.memoryDir,
    hiddenPaths: services?.hiddenPaths,
    user: commandUser(status.runsAs, workspace),
  })
}
