/** @module Tool flags: what the scheduler and the permission flow know about a call. */
import { Type, type Static } from '@sinclair/typebox'

export const SideEffectScopeSchema = Type.Union(
  [Type.Literal('none'), Type.Literal('session'), Type.Literal('workspace'), Type.Literal('network'), Type.Literal('system'), Type.Literal('userInteraction')],
  { $id: 'SideEffectScope' },
)
export type SideEffectScope = Static<typeof SideEffectScopeSchema>

export const ToolFlagsSchema = Type.Object(
  {
    readOnly: Type.Boolean(),
    destructive: Type.Boolean(),
    concurrentSafe: Type.Boolean(),
    sideEffectScope: SideEffectScopeSchema,
    alwaysAsk: Type.Boolean(),
    requiresUserInteraction: Type.Boolean(),
    dependencies: Type.Array(Type.String()),
  },
  { $id: 'ToolFlags' },
)
export type ToolFlags = Static<typeof ToolFlagsSchema>

/** What the scheduler's canRunInParallel reads (R4); every field may be missing. */
export interface ToolDependency {
  readonly callId: string
  readonly toolName?: string | undefined
  readonly readOnly?: boolean | undefined
  readonly destructive?: boolean | undefined
  readonly concurrentSafe?: boolean | undefined
  readonly sideEffectScope?: SideEffectScope | undefined
  readonly dependencies?: readonly string[] | undefined
}
