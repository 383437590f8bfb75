import { describe, expect, it } from 'vitest'
import type { HookOutput, HookPayload } from '../../src/contracts/ports.js'
import { createFunctionHookRunner } from '../../src/hooks/function-hook-runner.js'
import { compileMatcher } from '../../src/hooks/matcher.js'
import { delay, hook } from '../support/permission-tools.js'
import { collectEvents } from '../support/tools.js'

const NEVER = new AbortController().signal

function payload(toolName: string): HookPayload {
  return { hookEventName: 'PreToolUse', sessionId: 's', callId: 'c1', toolName, toolInput: { a: 1 } }
}

describe('A7 HookRun events of the function hook runner', () => {
  it('A7 reports started then completed, with the output, for a hook that answers', async () => {
    const runner = createFunctionHookRunner([hook('PreToolUse', () => ({ additionalContext: 'ok' }), '*', 'ctx')])
    const { events, emit } = collectEvents()
    const outputs = await runner.run('PreToolUse', payload('Read'), NEVER, emit)
    expect(outputs).toEqual([{ additionalContext: 'ok', hook: 'ctx' }])
    const fields = { sessionId: 's', callId: 'c1', toolName: 'Read', hookEvent: 'PreToolUse', hook: 'ctx' }
    expect(events).toEqual([
      { type: 'HookRunStarted', ...fields },
      { type: 'HookRunCompleted', ...fields, output: { additionalContext: 'ok' } },
    ])
  })

  it.each<[string, HookOutput, string]>([
    ['a PreToolUse deny', { permissionDecision: 'deny', reason: 'no writes' }, 'no writes'],
    ['a PermissionRequest deny', { decision: 'deny', message: 'denied by policy' }, 'denied by policy'],
    ['a PostToolUse block', { decision: 'block', reason: 'leaks a token' }, 'leaks a token'],
  ])('A7 reports %s as HookRunBlocked with its reason', async (_title, output, reason) => {
    const runner = createFunctionHookRunner([hook('PreToolUse', () => output, undefined, 'gate')])
    const { events, emit } = collectEvents()
    await runner.run('PreToolUse', payload('Write'), NEVER, emit)
    expect(events.map((e) => e.type)).toEqual(['HookRunStarted', 'HookRunBlocked'])
    expect(events[1]?.type === 'HookRunBlocked' ? events[1].reason : undefined).toBe(reason)
  })

  it.each<[string, () => never | Promise<never>, string]>([
    [
      'a throwing hook',
      () => {
        throw new Error('boom')
      },
      'boom',
    ],
    ['a rejecting hook', () => Promise.reject(new Error('late boom')), 'late boom'],
    [
      'a hook throwing a non-error',
      () => {
        throw 'plain string' // eslint-disable-line @typescript-eslint/only-throw-error -- how the runner reports a thrown non-error is what this case tests
      },
      'plain string',
    ],
  ])('A7 reports %s as HookRunFailed and drops only its output', async (_title, run, error) => {
    const runner = createFunctionHookRunner([hook('PreToolUse', run, '*', 'broken'), hook('PreToolUse', () => ({ additionalContext: 'fine' }), '*', 'good')])
    const { events, emit } = collectEvents()
    const outputs = await runner.run('PreToolUse', payload('Read'), NEVER, emit)
    expect(outputs).toEqual([{ additionalContext: 'fine', hook: 'good' }])
    const failed = events.filter((e) => e.type === 'HookRunFailed')
    expect(failed.map((e) => (e.type === 'HookRunFailed' ? [e.hook, e.error] : []))).toEqual([['broken', error]])
  })

  it('A11 keeps outputs in registration order even when an earlier hook finishes last', async () => {
    const slow = hook(
      'PreToolUse',
      async () => {
        await delay(15)
        return { additionalContext: 'first' }
      },
      '*',
      'slow',
    )
    const quick = hook('PreToolUse', () => ({ additionalContext: 'second' }), '*', 'quick')
    const outputs = await createFunctionHookRunner([slow, quick]).run('PreToolUse', payload('Read'), NEVER)
    expect(outputs.map((output) => output.additionalContext)).toEqual(['first', 'second'])
  })

  it('A7 runs only the hooks of the event asked for and emits nothing when none match', async () => {
    const runner = createFunctionHookRunner([hook('PostToolUse', () => ({ additionalContext: 'post' }))])
    const { events, emit } = collectEvents()
    expect(await runner.run('PreToolUse', payload('Read'), NEVER, emit)).toEqual([])
    expect(events).toEqual([])
    expect(runner.has('PreToolUse', 'Read')).toBe(false)
    expect(runner.has('PostToolUse', 'Read')).toBe(true)
  })
})

describe('hook matchers', () => {
  it.each<[string | undefined, string, boolean]>([
    [undefined, 'Anything', true],
    ['', 'Anything', true],
    ['*', 'mcp__db__query', true],
    ['Write', 'Write', true],
    ['Write', 'WriteFile', false],
    ['Write', 'write', false],
    ['Write|Edit', 'Edit', true],
    ['Write|Edit', 'Write', true],
    ['Write|Edit', 'Read', false],
    ['mcp__.*', 'mcp__github__create_issue', true],
    ['mcp__.*', 'Read', false],
    ['Web(Fetch|Search)', 'WebSearch', true],
    ['Web(Fetch|Search)', 'WebSearchX', false],
    ['Notebook.*', 'MyNotebookEdit', false],
  ])('A11 matcher %j on %s is %s', (matcher, toolName, expected) => {
    expect(compileMatcher(matcher)(toolName)).toBe(expected)
    const runner = createFunctionHookRunner([hook('PreToolUse', () => undefined, matcher)])
    expect(runner.has('PreToolUse', toolName)).toBe(expected)
  })

  it('A11 a matcher selects which hooks run for a tool', async () => {
    const ran: string[] = []
    const named = (name: string, matcher: string) => hook('PreToolUse', () => void ran.push(name), matcher, name)
    const runner = createFunctionHookRunner([named('all', '*'), named('write', 'Write'), named('either', 'Read|Write'), named('regex', 'W.*e')])
    await runner.run('PreToolUse', payload('Write'), NEVER)
    await runner.run('PreToolUse', payload('Read'), NEVER)
    expect(ran).toEqual(['all', 'write', 'either', 'regex', 'all', 'either'])
  })
})
