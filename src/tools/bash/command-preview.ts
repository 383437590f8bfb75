/**
 * @module What the approval of a Bash command shows besides the command: the directory it runs
 * in, whether the sandbox confines it and, when it does, what an allowed command may write
 * (the workspace and the settings' writable paths, but the files that steer the agent or git)
 * and whether it reaches the network. Unconfined, it may do whatever the server's user may.
 */
import type { CommandPreview, InputContext } from '../../contracts/tool-entry.js'
import { DEFAULT_SANDBOX_SETTINGS, PROTECTED_WORKSPACE_PATHS } from './sandbox.js'
import type { SandboxStatus } from './sandbox-probe.js'

export async function commandPreview(status: SandboxStatus, ctx: InputContext): Promise<CommandPreview> {
  const cwd = ctx.workspace ?? process.cwd()
  if (!status.confined) return { cwd, confined: false, reason: status.reason ?? 'no sandbox here', writable: [], protected: [], network: true }
  const settings = (await ctx.services?.sandbox?.settingsOf(ctx.sessionId)) ?? DEFAULT_SANDBOX_SETTINGS
  return { cwd, confined: true, writable: [cwd, ...settings.writablePaths], protected: PROTECTED_WORKSPACE_PATHS, network: settings.network }
}
