/** @module One tool call as the model wrote it. */
import { Type, type Static } from '@sinclair/typebox'

export const ToolCallSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.String({ maxLength: 200 }),
    input: Type.Unknown(),
    dependsOn: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
  },
  { $id: 'ToolCall', additionalProperties: false },
)
export type ToolCall = Static<typeof ToolCallSchema>
