/**
 * @module The shapes of the model APIs toolexec speaks besides its own: the `tools` parameter,
 * the model's tool calls as its reply carries them, and the results as the next request must
 * carry them, for Anthropic's Messages API, OpenAI's Chat Completions and OpenAI's Responses.
 * The official SDKs' TypeScript types accept these replies, and their reply types are accepted
 * here, without a cast (test/model-formats-types.test.ts).
 */
import { Type, type Static } from '@sinclair/typebox'
import { IdSchema } from './ids.js'

export const MODEL_FORMATS = ['anthropic', 'openai-chat', 'openai-responses'] as const
export const ModelFormatSchema = Type.Union(
  MODEL_FORMATS.map((format) => Type.Literal(format)),
  { $id: 'ModelFormat', description: "A model API's own shapes: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses" },
)
export type ModelFormat = Static<typeof ModelFormatSchema>

const ToolName = Type.String({ maxLength: 200, pattern: '^[^\\u0000]*$' })
/** A schema of a reply that may hold keywords of its own. */
const OPEN = { additionalProperties: true } as const
/**
 * Each API keeps more fields on its blocks than toolexec reads: they are accepted and ignored.
 * JSON Schema leaves an object open when it says nothing; saying `additionalProperties: true`
 * would give the generated types an index signature the SDKs' interfaces do not satisfy.
 */
const MORE_FIELDS = 'Other fields are accepted and ignored'
/** A JSON Schema of an object, as the tools parameter carries it. */
const ParametersSchema = Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON Schema with `type: "object"` at the top' })

// ---------------------------------------------------------------- tools parameter

export const AnthropicToolSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    input_schema: Type.Object({ type: Type.Literal('object'), properties: Type.Optional(Type.Unknown()), required: Type.Optional(Type.Array(Type.String())) }, OPEN),
  },
  { $id: 'AnthropicTool', description: 'One entry of the Messages API `tools` parameter' },
)
export type AnthropicTool = Static<typeof AnthropicToolSchema>

export const OpenAIChatToolSchema = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object({ name: Type.String(), description: Type.String(), parameters: ParametersSchema }),
  },
  { $id: 'OpenAIChatTool', description: 'One entry of the Chat Completions `tools` parameter' },
)
export type OpenAIChatTool = Static<typeof OpenAIChatToolSchema>

export const OpenAIResponsesToolSchema = Type.Object(
  {
    type: Type.Literal('function'),
    name: Type.String(),
    description: Type.String(),
    parameters: ParametersSchema,
    strict: Type.Literal(false, { description: 'The schemas are not written for strict mode (every property required, no open objects)' }),
  },
  { $id: 'OpenAIResponsesTool', description: 'One entry of the Responses API `tools` parameter' },
)
export type OpenAIResponsesTool = Static<typeof OpenAIResponsesToolSchema>

// ---------------------------------------------------------------- the model's tool calls

const AnthropicToolUseSchema = Type.Object(
  { type: Type.Literal('tool_use'), id: IdSchema, name: ToolName, input: Type.Unknown() },
  { description: `${MORE_FIELDS}. ` + 'Becomes a call: id, name and input as given' },
)
const AnthropicOtherBlockSchema = Type.Object(
  { type: Type.String({ pattern: '^(?!tool_use$)', description: 'Any block type but `tool_use`' }) },
  { description: `${MORE_FIELDS}. ` + 'Ignored: text, thinking, redacted_thinking, server tool blocks, ...' },
)
export const AnthropicAssistantContentSchema = Type.Array(Type.Union([AnthropicToolUseSchema, AnthropicOtherBlockSchema]), {
  $id: 'AnthropicAssistantContent',
  maxItems: 4000,
  description: "The assistant message's `content` as the Messages API returned it: its `tool_use` blocks become the calls, in order",
})
export type AnthropicAssistantContent = Static<typeof AnthropicAssistantContentSchema>

const OpenAIChatFunctionCallSchema = Type.Object(
  {
    id: IdSchema,
    type: Type.Literal('function'),
    function: Type.Object(
      { name: ToolName, arguments: Type.String({ description: 'The input as a JSON text; one that is not a JSON object fails its call, not the request' }) },
      { description: MORE_FIELDS },
    ),
  },
  { description: `${MORE_FIELDS}. ` + 'Becomes a call' },
)
const OpenAIChatOtherCallSchema = Type.Object(
  { type: Type.String({ pattern: '^(?!function$)', description: 'Any type but `function`' }) },
  { description: `${MORE_FIELDS}. ` + 'Ignored: toolexec offers only function tools' },
)
export const OpenAIChatToolCallsSchema = Type.Array(Type.Union([OpenAIChatFunctionCallSchema, OpenAIChatOtherCallSchema]), {
  $id: 'OpenAIChatToolCalls',
  maxItems: 1000,
  description: "The assistant message's `tool_calls` as Chat Completions returned them: its function calls become the calls, in order",
})
export type OpenAIChatToolCalls = Static<typeof OpenAIChatToolCallsSchema>

const OpenAIResponsesFunctionCallSchema = Type.Object(
  {
    type: Type.Literal('function_call'),
    call_id: IdSchema,
    name: ToolName,
    arguments: Type.String({ description: 'The input as a JSON text; one that is not a JSON object fails its call, not the request' }),
    id: Type.Optional(Type.String()),
  },
  { description: `${MORE_FIELDS}. ` + 'Becomes a call whose id is `call_id`' },
)
const OpenAIResponsesOtherItemSchema = Type.Object(
  { type: Type.String({ pattern: '^(?!function_call$)', description: 'Any item type but `function_call`' }) },
  { description: `${MORE_FIELDS}. ` + 'Ignored: message, reasoning, built-in tool calls, ...' },
)
export const OpenAIResponsesOutputSchema = Type.Array(Type.Union([OpenAIResponsesFunctionCallSchema, OpenAIResponsesOtherItemSchema]), {
  $id: 'OpenAIResponsesOutput',
  maxItems: 4000,
  description: "The response's `output` as the Responses API returned it: its `function_call` items become the calls, in order",
})
export type OpenAIResponsesOutput = Static<typeof OpenAIResponsesOutputSchema>

// ---------------------------------------------------------------- results

const AnthropicTextSchema = Type.Object({ type: Type.Literal('text'), text: Type.String() })
export const ANTHROPIC_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const
export type AnthropicImageType = (typeof ANTHROPIC_IMAGE_TYPES)[number]
const AnthropicImageSchema = Type.Object({
  type: Type.Literal('image'),
  source: Type.Object({
    type: Type.Literal('base64'),
    media_type: Type.Union(ANTHROPIC_IMAGE_TYPES.map((mediaType) => Type.Literal(mediaType))),
    data: Type.String(),
  }),
})
export const AnthropicToolResultSchema = Type.Object(
  {
    type: Type.Literal('tool_result'),
    tool_use_id: Type.String(),
    content: Type.Union([Type.String(), Type.Array(Type.Union([AnthropicTextSchema, AnthropicImageSchema]))]),
    is_error: Type.Boolean({ description: 'R28: a failed call, a tool output that says it is an error, an interrupted Bash' }),
  },
  { $id: 'AnthropicToolResult' },
)
export type AnthropicToolResult = Static<typeof AnthropicToolResultSchema>
export type AnthropicResultBlock = AnthropicToolResult['content'] extends string | (infer Block)[] ? Block : never

export const AnthropicToolResultsMessageSchema = Type.Object(
  { role: Type.Literal('user'), content: Type.Array(AnthropicToolResultSchema) },
  { $id: 'AnthropicToolResultsMessage', description: 'The `user` message to append: one `tool_result` per call, in call order' },
)
export type AnthropicToolResultsMessage = Static<typeof AnthropicToolResultsMessageSchema>

const ChatTextPartSchema = Type.Object({ type: Type.Literal('text'), text: Type.String() })
export const OpenAIChatToolMessageSchema = Type.Object(
  { role: Type.Literal('tool'), tool_call_id: Type.String(), content: Type.Union([Type.String(), Type.Array(ChatTextPartSchema)]) },
  { $id: 'OpenAIChatToolMessage' },
)
export type OpenAIChatToolMessage = Static<typeof OpenAIChatToolMessageSchema>
const ChatImagePartSchema = Type.Object({ type: Type.Literal('image_url'), image_url: Type.Object({ url: Type.String({ description: 'A data: URL' }) }) })
export const OpenAIChatImagesMessageSchema = Type.Object(
  { role: Type.Literal('user'), content: Type.Array(Type.Union([ChatTextPartSchema, ChatImagePartSchema])) },
  {
    $id: 'OpenAIChatImagesMessage',
    description:
      'A tool message cannot carry an image: after the tool messages, one user message carries the images of every call, each group ' + 'introduced by the text `Images returned by tool call <id>:`',
  },
)
export type OpenAIChatImagesMessage = Static<typeof OpenAIChatImagesMessageSchema>
export type OpenAIChatPart = OpenAIChatImagesMessage['content'][number]

const InputTextSchema = Type.Object({ type: Type.Literal('input_text'), text: Type.String() })
const InputImageSchema = Type.Object({ type: Type.Literal('input_image'), image_url: Type.String({ description: 'A data: URL' }) })
export const OpenAIFunctionCallOutputSchema = Type.Object(
  {
    type: Type.Literal('function_call_output'),
    call_id: Type.String(),
    output: Type.Union([Type.String(), Type.Array(Type.Union([InputTextSchema, InputImageSchema]))]),
  },
  { $id: 'OpenAIFunctionCallOutput' },
)
export type OpenAIFunctionCallOutput = Static<typeof OpenAIFunctionCallOutputSchema>
export type OpenAIOutputPart = Exclude<OpenAIFunctionCallOutput['output'], string>[number]
