/**
 * @module What the permission services and the executor both read of a decision: the rule id
 * an approval treats specially, and the answer of a broker with no client. Here, below both,
 * so that the executor never imports the permission services it is given.
 */
import type { PermissionAnswer } from './ports.js'

/** The ask of a write to a file that steers the agent; an approval of it lets that write happen. */
export const STEERING_RULE_ID = 'instruction-file'

export const NO_PERMISSION_CLIENT_REASON = 'No permission client configured'

/** The answer a non-interactive broker gives when no hook decided first (R17). */
export const DENIED_WITHOUT_CLIENT: PermissionAnswer = Object.freeze({
  decision: 'deny',
  decidedBy: 'broker',
  message: NO_PERMISSION_CLIENT_REASON,
})
