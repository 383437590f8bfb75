import { describe, expect, it } from 'vitest'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { DisplaySchema, type Display } from '../../src/contracts/display.js'
import type { Serialization } from '../../src/contracts/result.js'
import type { DisplayArgs, ToolEntry } from '../../src/contracts/tool-entry.js'
import { createToolResultDisplay, isDisplay, type DisplayInput } from '../../src/executor/result-display.js'
import { mcpToolDisplay } from '../../src/output/mcp-tool-display.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { createEditTool } from '../../src/tools/edit/index.js'
import { createGrepTool } from '../../src/tools/grep/index.js'
import { createMcpTool } from '../../src/tools/mcp/mcp-tool.js'
import { createReadTool } from '../../src/tools/read/index.js'
import { createWriteTool } from '../../src/tools/write/index.js'

const BASH = createBashTool({ sandbox: { mode: 'off', confined: false } }) as ToolEntry

function mcpEntry(server: string, tool: string): ToolEntry {
  const never = (): Promise<never> => Promise.reject(new Error('not called'))
  return createMcpTool({ name: server, callTool: never }, { name: tool, inputSchema: { type: 'object' } })
}

const INLINE: Serialization = { truncated: false, originalBytes: 3, actualBytes: 3, strategy: 'inline' }
const TRUNCATED: Serialization = { truncated: true, originalBytes: 9, actualBytes: 3, strategy: 'truncate' }

function call(over: Partial<DisplayInput>): DisplayInput {
  return { input: {}, output: undefined, fullText: '', serialization: INLINE, ...over }
}

/** Every display the module produces must be a valid Display (R38). */
function display(args: DisplayInput): Display | undefined {
  const result = createToolResultDisplay(args)
  if (result !== undefined) expect(Value.Check(DisplaySchema, result)).toBe(true)
  return result
}

function entry(buildDisplay: (args: DisplayArgs<unknown, unknown>) => Display | undefined): ToolEntry {
  return {
    name: 'Custom',
    description: 'a tool with its own display',
    inputSchema: Type.Object({}),
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'none' },
    handler: () => Promise.resolve('ok'),
    buildDisplay,
  }
}

const WORKFLOW_RUN: Display = { kind: 'workflow_run', runId: 'r1', workflow: 'deploy', status: 'running' }

const ALL_KINDS: readonly Display[] = [
  { kind: 'bash_output', command: 'ls', output: 'a', exitCode: 0, truncated: true, originalBytes: 1 },
  {
    kind: 'file_diff',
    filePath: 'a.ts',
    operation: 'update',
    hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-a', '+b'] }],
    additions: 1,
    deletions: 1,
    truncated: false,
  },
  { kind: 'mcp_tool', server: 'gh', tool: 'issue', text: 't', isError: false, truncated: false },
  { kind: 'cua', action: 'click', x: 1, y: 2 },
  { kind: 'node_repl_screenshot', screenshotUri: 'artifact://s.png', width: 800 },
  { kind: 'subagent_run', agentId: 'a1', description: 'review', status: 'done', summary: 'ok' },
  { kind: 'subagent_batch', agents: [{ agentId: 'a1', description: 'x', status: 'running' }] },
  { kind: 'background_task', taskId: 't1', command: 'npm test', status: 'running' },
  { kind: 'background_task_output', taskId: 't1', status: 'done', output: 'ok', truncated: false },
  WORKFLOW_RUN,
  { kind: 'workflow_step', runId: 'r1', step: 'build', status: 'done' },
  { kind: 'workflow_saved', workflow: 'deploy', path: '/w/deploy.yaml' },
  { kind: 'workflow_list', workflows: [{ name: 'deploy', description: 'ship it' }] },
  { kind: 'workflow_eval', snippet: '1+1', result: '2', truncated: false },
  { kind: 'workflow_schedule', scheduleId: 's1', cron: '0 * * * *', action: 'created' },
  { kind: 'model_list', models: [{ id: 'm1', provider: 'p' }] },
]

describe('result display', () => {
  it('R38 accepts a value of each of the 16 kinds and rejects an unknown kind', () => {
    expect(new Set(ALL_KINDS.map((d) => d.kind)).size).toBe(16)
    expect(DisplaySchema.anyOf).toHaveLength(16)
    for (const value of ALL_KINDS) {
      expect(Value.Check(DisplaySchema, value)).toBe(true)
      expect(isDisplay(value)).toBe(true)
    }
    const unknownKind = { kind: 'video', uri: 'x' }
    expect(Value.Check(DisplaySchema, unknownKind)).toBe(false)
    expect(isDisplay(unknownKind)).toBe(false)
    expect(isDisplay({ kind: 'workflow_run', runId: 'r1' })).toBe(false)
  })

  it.each([['a truncated result', { output: 'o', exitCode: 3, confined: false }, TRUNCATED, 'o', 3]])(
    'R38 the Bash entry builds bash_output for %s',
    (_name, output, serialization, text, exitCode) => {
      const result = display(call({ entry: BASH, input: { command: 'make' }, output, fullText: 'full', serialization }))
      expect(result).toMatchObject({ kind: 'bash_output', command: 'make', output: text, exitCode, truncated: true })
    },
  )

  it('R38 gives no display for a Bash result that was neither truncated nor persisted', () => {
    expect(display(call({ entry: BASH, input: { command: 'ls' }, output: { output: 'a\n', exitCode: 0, confined: false } }))).toBeUndefined()
  })

  it.each([
    ['Write', createWriteTool(), null, 'create'],
    ['Edit', createEditTool(), 'a\nb\n', 'update'],
  ])('R38 the %s entry builds file_diff from filePath, oldContent and newContent', (_name, tool, oldContent, operation) => {
    const output = { filePath: '/w/x.txt', oldContent, newContent: 'a\nc\n' }
    const result = display(call({ entry: tool, output }))
    expect(result).toMatchObject({ kind: 'file_diff', filePath: '/w/x.txt', operation })
  })

  it.each([
    ['no output', undefined],
    ['a text output', 'done'],
    ['no oldContent', { filePath: 'x', newContent: 'y' }],
    ['a numeric newContent', { filePath: 'x', oldContent: null, newContent: 1 }],
  ])('R38 gives no file_diff for an Edit with %s', (_name, output) => {
    expect(display(call({ entry: createEditTool(), output }))).toBeUndefined()
  })

  it('R38 an MCP entry builds mcp_tool from its name, the full text and output.isError', () => {
    const result = display(call({ entry: mcpEntry('github', 'create_issue'), output: { isError: true }, fullText: 'boom' }))
    expect(result).toEqual({
      kind: 'mcp_tool',
      server: 'github',
      tool: 'create_issue',
      text: 'boom',
      isError: true,
      truncated: false,
    })
  })

  it('R38 keeps the first 100000 bytes of an MCP text, never splitting a character', () => {
    const fullText = 'a' + '😀'.repeat(25_000)
    const result = display(call({ entry: mcpEntry('s', 't'), output: {}, fullText }))
    expect(result).toMatchObject({ kind: 'mcp_tool', isError: false, truncated: true })
    const text = result?.kind === 'mcp_tool' ? result.text : ''
    expect(text).toBe('a' + '😀'.repeat(24_999))
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(100_000)
  })

  it.each(['mcp__', 'mcp__server', 'mcp____tool', 'mcp__server__', 'MCP__s__t', 'Read'])('R38 an MCP display needs a name mcp__<server>__<tool>, not %s', (name) => {
    expect(mcpToolDisplay(name, {}, 'x')).toBeUndefined()
  })

  it.each([
    ['Read', createReadTool()],
    ['Grep', createGrepTool()],
  ])('R38 gives no display for %s, whose entry builds none', (_name, tool) => {
    expect(display(call({ entry: tool, output: 'x', fullText: 'x', serialization: TRUNCATED }))).toBeUndefined()
  })

  it("R38 prefers the entry's own buildDisplay, with the call's input, output and text", () => {
    let seen: DisplayArgs<unknown, unknown> | undefined
    const own = entry((args) => {
      seen = args
      return WORKFLOW_RUN
    })
    const args = call({ entry: own, input: { command: 'ls' }, output: 'o', fullText: 'f' })
    expect(display({ ...args, serialization: TRUNCATED })).toEqual(WORKFLOW_RUN)
    expect(seen).toEqual({ input: { command: 'ls' }, output: 'o', fullText: 'f', serialization: TRUNCATED })
  })

  it.each([
    ['returns undefined', () => undefined],
    ['returns an invalid display', () => ({ kind: 'video' }) as unknown as Display],
  ])("R38 gives no display when the entry's buildDisplay %s", (_name, build) => {
    const args = call({ entry: entry(build), input: { command: 'ls' }, output: 'o' })
    expect(display({ ...args, serialization: TRUNCATED })).toBeUndefined()
  })

  it('R38 gives undefined instead of failing the call when a builder throws', () => {
    const throwing = entry(() => {
      throw new Error('display bug')
    })
    expect(display(call({ entry: throwing }))).toBeUndefined()
    const explosive = {
      get filePath(): string {
        throw new Error('getter bug')
      },
    }
    expect(display(call({ entry: createWriteTool(), output: explosive }))).toBeUndefined()
  })
})
