/**
 * @module The UI projection of a result (R38): a discriminated union of 16 kinds, chosen by
 * tool name. Display is not subject to the result budget; each kind limits itself.
 */
import { Type, type Static } from '@sinclair/typebox'

export const FILE_DIFF_MAX_HUNKS = 8
export const FILE_DIFF_MAX_LINES = 160
/** A longer line keeps its first characters: the file itself, or the call's input, has the rest. */
export const FILE_DIFF_MAX_LINE_CHARS = 1_000
export const BASH_OUTPUT_MAX_BYTES = 150_000

const Str = Type.String()
const OptStr = Type.Optional(Type.String())
const OptNum = Type.Optional(Type.Number())

export const DiffHunkSchema = Type.Object({
  oldStart: Type.Integer(),
  oldLines: Type.Integer(),
  newStart: Type.Integer(),
  newLines: Type.Integer(),
  lines: Type.Array(Str, {
    description:
      "Each line starts with ' ', '+' or '-'. A line is cut after 1,000 characters (the display then says `truncated`): " +
      "a Write's whole text is the call's `input.content`, and the file is in the workspace.",
  }),
})

export const BashOutputDisplaySchema = Type.Object({
  kind: Type.Literal('bash_output'),
  command: Str,
  output: Str,
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  truncated: Type.Boolean(),
  originalBytes: Type.Integer(),
  persistedPath: OptStr,
  /** The command ran in the sandbox (confined by the kernel). */
  confined: Type.Optional(Type.Boolean()),
})
export const FileDiffDisplaySchema = Type.Object({
  kind: Type.Literal('file_diff'),
  filePath: Str,
  operation: Type.Union([Type.Literal('create'), Type.Literal('update')]),
  hunks: Type.Array(DiffHunkSchema),
  additions: Type.Integer(),
  deletions: Type.Integer(),
  truncated: Type.Boolean({ description: 'Hunks, lines or the text of a line were left out: at most 8 hunks, 160 lines, 1,000 characters a line' }),
})
export const McpToolDisplaySchema = Type.Object({
  kind: Type.Literal('mcp_tool'),
  server: Str,
  tool: Str,
  text: Str,
  isError: Type.Boolean(),
  truncated: Type.Boolean(),
})
export const CuaDisplaySchema = Type.Object({
  kind: Type.Literal('cua'),
  action: Str,
  screenshotUri: OptStr,
  x: OptNum,
  y: OptNum,
})
export const NodeReplScreenshotDisplaySchema = Type.Object({
  kind: Type.Literal('node_repl_screenshot'),
  screenshotUri: Str,
  width: OptNum,
  height: OptNum,
})
export const SubagentRunDisplaySchema = Type.Object({
  kind: Type.Literal('subagent_run'),
  agentId: Str,
  description: Str,
  status: Str,
  summary: OptStr,
})
export const SubagentBatchDisplaySchema = Type.Object({
  kind: Type.Literal('subagent_batch'),
  agents: Type.Array(Type.Object({ agentId: Str, description: Str, status: Str })),
})
export const BackgroundTaskDisplaySchema = Type.Object({
  kind: Type.Literal('background_task'),
  taskId: Str,
  command: OptStr,
  status: Str,
  /** The command runs in the sandbox (confined by the kernel). */
  confined: Type.Optional(Type.Boolean()),
})
export const BackgroundTaskOutputDisplaySchema = Type.Object({
  kind: Type.Literal('background_task_output'),
  taskId: Str,
  status: Str,
  output: Str,
  truncated: Type.Boolean(),
})
export const WorkflowRunDisplaySchema = Type.Object({
  kind: Type.Literal('workflow_run'),
  runId: Str,
  workflow: Str,
  status: Str,
})
export const WorkflowStepDisplaySchema = Type.Object({
  kind: Type.Literal('workflow_step'),
  runId: Str,
  step: Str,
  status: Str,
})
export const WorkflowSavedDisplaySchema = Type.Object({
  kind: Type.Literal('workflow_saved'),
  workflow: Str,
  path: Str,
})
export const WorkflowListDisplaySchema = Type.Object({
  kind: Type.Literal('workflow_list'),
  workflows: Type.Array(Type.Object({ name: Str, description: OptStr })),
})
export const WorkflowEvalDisplaySchema = Type.Object({
  kind: Type.Literal('workflow_eval'),
  snippet: Str,
  result: Str,
  truncated: Type.Boolean(),
})
export const WorkflowScheduleDisplaySchema = Type.Object({
  kind: Type.Literal('workflow_schedule'),
  scheduleId: Str,
  cron: OptStr,
  action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]),
})
export const ModelListDisplaySchema = Type.Object({
  kind: Type.Literal('model_list'),
  models: Type.Array(Type.Object({ id: Str, provider: OptStr })),
})

export const DisplaySchema = Type.Union(
  [
    BashOutputDisplaySchema,
    FileDiffDisplaySchema,
    McpToolDisplaySchema,
    CuaDisplaySchema,
    NodeReplScreenshotDisplaySchema,
    SubagentRunDisplaySchema,
    SubagentBatchDisplaySchema,
    BackgroundTaskDisplaySchema,
    BackgroundTaskOutputDisplaySchema,
    WorkflowRunDisplaySchema,
    WorkflowStepDisplaySchema,
    WorkflowSavedDisplaySchema,
    WorkflowListDisplaySchema,
    WorkflowEvalDisplaySchema,
    WorkflowScheduleDisplaySchema,
    ModelListDisplaySchema,
  ],
  { $id: 'Display' },
)
export type Display = Static<typeof DisplaySchema>
export type DisplayKind = Display['kind']
export type DiffHunk = Static<typeof DiffHunkSchema>
export type BashOutputDisplay = Static<typeof BashOutputDisplaySchema>
export type FileDiffDisplay = Static<typeof FileDiffDisplaySchema>
export type McpToolDisplay = Static<typeof McpToolDisplaySchema>
