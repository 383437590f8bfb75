import { describe, expect, it } from 'vitest'
import type { CallStatus } from '../../src/contracts/result.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { isErrorForHistory } from '../../src/executor/history.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { createReadTool } from '../../src/tools/read/index.js'

const ENTRIES: Readonly<Record<string, ToolEntry>> = {
  Bash: createBashTool({ sandbox: { mode: 'off', confined: false } }),
  Read: createReadTool(),
}

describe('isErrorForHistory', () => {
  it.each<[string, boolean, CallStatus, string, unknown, boolean]>([
    ['a failed call', false, 'failed', 'Read', undefined, true],
    ['a denied call', false, 'denied', 'Write', undefined, true],
    ['a cancelled call', false, 'cancelled', 'Bash', undefined, true],
    ['a timed-out call', false, 'timed_out', 'WebFetch', undefined, true],
    ['a clean success', true, 'succeeded', 'Read', { content: 'x' }, false],
    ['a success with no output', true, 'succeeded', 'Read', undefined, false],
    ['a success whose output has isError: true', true, 'succeeded', 'mcp__gh__issue', { isError: true }, true],
    ['a success whose output has isError: false', true, 'succeeded', 'mcp__gh__issue', { isError: false }, false],
    ['a success whose output has a truthy non-boolean isError', true, 'succeeded', 'mcp__gh__issue', { isError: 'yes' }, false],
    ['a success whose output is a string', true, 'succeeded', 'Read', 'isError', false],
    ['an interrupted Bash', true, 'interrupted', 'Bash', { stdout: 'partial' }, true],
    ['an interrupted Bash that failed', false, 'interrupted', 'Bash', undefined, true],
    ['an interrupted other tool that succeeded', true, 'interrupted', 'Task', { summary: 'partial' }, false],
  ])('R28 treats %s as error=%s', (_label, success, status, toolName, output, expected) => {
    expect(isErrorForHistory({ success, status, output }, ENTRIES[toolName])).toBe(expected)
  })
})
