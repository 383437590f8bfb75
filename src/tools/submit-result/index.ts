/**
 * @module submit_result {result}: a sub-agent's final answer (SPEC A1: F/F/F/session, serial;
 * 16000 bytes, truncate; no time limit). Its success stops the turn: the entry declares the
 * control the executor attaches (src/executor/turn-control.ts, R9, R30, A5).
 */
import { Type, type Static } from '@sinclair/typebox'
import { SUBAGENT_TERMINAL } from '../../contracts/result.js'
import { defineTool, type ToolEntry } from '../../contracts/tool-entry.js'

export const SUBMIT_RESULT_TOOL_NAME = 'submit_result'

const SubmitResultInputSchema = Type.Object(
  { result: Type.Unknown({ description: 'The final result of the task: text, or JSON when the task asked for a structure' }) },
  { additionalProperties: false },
)
export type SubmitResultInput = Static<typeof SubmitResultInputSchema>

/** The result as submitted; kept in a field so that a result like {isError: true} is not read as R28's flag. */
export interface SubmitResultOutput {
  readonly result: unknown
}

const DESCRIPTION = 'Submits the final result of the task and ends the turn. Call it once, last, when the work is done.'

export function resultText(result: unknown): string {
  if (typeof result === 'string') return result
  return JSON.stringify(result, null, 2) ?? ''
}

/** @example registry.register(createSubmitResultTool()) */
export function createSubmitResultTool(): ToolEntry<SubmitResultInput, SubmitResultOutput> {
  return defineTool({
    name: SUBMIT_RESULT_TOOL_NAME,
    turnControlOnSuccess: SUBAGENT_TERMINAL,
    description: DESCRIPTION,
    inputSchema: SubmitResultInputSchema,
    readOnly: false,
    destructive: false,
    concurrentSafe: false,
    permission: { sideEffectScope: 'session' },
    timeout: { kind: 'none' },
    resultBudget: { maxModelBytes: 16_000, maxInlineBytes: 16_000, strategy: 'truncate', previewDirection: 'head' },
    formatModelContent: (output: SubmitResultOutput) => resultText(output.result),
    handler: function submitResult(input): Promise<SubmitResultOutput> {
      return Promise.resolve({ result: input.result })
    },
  })
}
