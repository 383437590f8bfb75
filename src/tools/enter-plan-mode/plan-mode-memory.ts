/**
 * @module The mode a session was in before EnterPlanMode, so that an approved ExitPlanMode
 * puts it back (acceptEdits stays acceptEdits). The memory hangs off the host's
 * SessionControl object: each runtime has its own, and it goes when that object goes.
 */
import type { PermissionMode, ToolCallContext } from '../../contracts/ports.js'
import type { SessionControl } from '../services.js'

const previousModes = new WeakMap<SessionControl, Map<string, PermissionMode>>()

/** The mode a session returns to when nothing was remembered (e.g. after a restart). */
export const MODE_AFTER_PLAN: PermissionMode = 'default'

export function sessionControl(ctx: ToolCallContext): SessionControl {
  const control = ctx.services.session
  if (control === undefined) throw new Error(`${ctx.toolName} needs the session service (services.session), and none is configured`)
  return control
}

export function rememberModeBeforePlan(control: SessionControl, sessionId: string, mode: PermissionMode): void {
  let modes = previousModes.get(control)
  if (modes === undefined) {
    modes = new Map()
    previousModes.set(control, modes)
  }
  modes.set(sessionId, mode)
}

/** The session was deleted: a new session of that id leaving plan mode must not get its old mode back. */
export function forgetModeBeforePlan(control: SessionControl, sessionId: string): void {
  previousModes.get(control)?.delete(sessionId)
}

/** Returns the remembered mode (or MODE_AFTER_PLAN) and forgets it. */
export function takeModeBeforePlan(control: SessionControl, sessionId: string): PermissionMode {
  const modes = previousModes.get(control)
  const mode = modes?.get(sessionId) ?? MODE_AFTER_PLAN
  modes?.delete(sessionId)
  return mode
}
