import { describe, expect, it } from 'vitest'
import type { HookEventName, HookOutput } from '../../src/contracts/ports.js'
import { blockingOutput, normalizeHookOutput } from '../../src/hooks/hook-output.js'

type Row = [string, HookEventName, unknown, HookOutput]

describe("a hook's JSON answer, read the way Claude Code writes it", () => {
  it.each<Row>([
    [
      'top-level PreToolUse fields',
      'PreToolUse',
      { permissionDecision: 'deny', reason: 'no', additionalContext: 'ctx', updatedInput: { a: 1 } },
      { permissionDecision: 'deny', reason: 'no', additionalContext: 'ctx', updatedInput: { a: 1 } },
    ],
    [
      'hookSpecificOutput with permissionDecisionReason',
      'PreToolUse',
      { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'confirm the push' } },
      { permissionDecision: 'ask', reason: 'confirm the push' },
    ],
    ['hookSpecificOutput over the top level', 'PreToolUse', { permissionDecision: 'allow', hookSpecificOutput: { permissionDecision: 'deny' } }, { permissionDecision: 'deny' }],
    ["Claude Code's older decision: approve", 'PreToolUse', { decision: 'approve', reason: 'ok' }, { permissionDecision: 'allow', reason: 'ok' }],
    ["Claude Code's older decision: block", 'PreToolUse', { decision: 'block', reason: 'bad' }, { permissionDecision: 'deny', reason: 'bad' }],
    ['an unknown permissionDecision is ignored', 'PreToolUse', { permissionDecision: 'maybe', reason: 'r' }, { reason: 'r' }],
    ['stopReason as the reason', 'PreToolUse', { permissionDecision: 'deny', stopReason: 'stop' }, { permissionDecision: 'deny', reason: 'stop' }],
    ['empty strings say nothing', 'PreToolUse', { reason: '', additionalContext: '' }, {}],
    ['a permissionDecision outside PreToolUse is ignored', 'PostToolUse', { permissionDecision: 'deny' }, {}],
    ['PermissionRequest decision as a word', 'PermissionRequest', { decision: 'allow', message: 'fine' }, { decision: 'allow', message: 'fine' }],
    [
      "PermissionRequest in Claude Code's shape",
      'PermissionRequest',
      { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'outside hours' } } },
      { decision: 'deny', message: 'outside hours' },
    ],
    ['PermissionRequest approve and block', 'PermissionRequest', { decision: 'block' }, { decision: 'deny' }],
    ['PostToolUse block with a reason', 'PostToolUse', { decision: 'block', reason: 'tests failed' }, { decision: 'block', reason: 'tests failed' }],
    ['PostToolUse context in hookSpecificOutput', 'PostToolUse', { hookSpecificOutput: { additionalContext: 'lint: 2 warnings' } }, { additionalContext: 'lint: 2 warnings' }],
    ['PostToolUse ignores approve', 'PostToolUse', { decision: 'approve' }, {}],
    ['PostToolUseFailure context', 'PostToolUseFailure', { additionalContext: 'retry with --force' }, { additionalContext: 'retry with --force' }],
    ['an array is no answer', 'PreToolUse', [{ permissionDecision: 'deny' }], {}],
    ['null is no answer', 'PreToolUse', null, {}],
  ])('R14 %s', (_case, event, raw, expected) => {
    expect(normalizeHookOutput(event, raw)).toEqual(expected)
  })
})

describe('exit code 2 of a command hook', () => {
  it.each<[HookEventName, HookOutput]>([
    ['PreToolUse', { permissionDecision: 'deny', reason: 'why' }],
    ['PermissionRequest', { decision: 'deny', message: 'why' }],
    ['PostToolUse', { decision: 'block', reason: 'why' }],
    ['PostToolUseFailure', { additionalContext: 'why' }],
  ])('R14 in %s blocks in that event’s terms', (event, expected) => {
    expect(blockingOutput(event, 'why')).toEqual(expected)
  })
})
