import { afterEach, describe, expect, it, vi } from 'vitest'
import type { HookOutput, HookPayload } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { type Executor } from '../../src/executor/executor.js'
import { mergePreToolUse, type PreToolUseOutcome } from '../../src/executor/hook-flow.js'
import { createFunctionHookRunner, type FunctionHook } from '../../src/hooks/function-hook-runner.js'
import { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { FAKE_TIMERS, CLIENT_DENY, answeringSink, hook, noteTool, ofType } from '../support/permission-tools.js'
import { collectEvents, editTool, readTool, sleepTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'
import { textOf } from '../support/model-text.js'

afterEach(() => {
  vi.useRealTimers()
})

function build(tools: readonly ToolEntry[], hooks: readonly FunctionHook[]): Executor {
  return createTestExecutor({ registry: new InMemoryToolRegistry(tools), hooks: createFunctionHookRunner(hooks) })
}

function context(event: FunctionHook['event'], text: string, extra: HookOutput = {}): FunctionHook {
  return hook(event, () => ({ additionalContext: text, ...extra }), undefined, `${event}:${text}`)
}

/** A PostToolUseFailure hook that keeps what it was told. */
function failureRecorder(): { hook: FunctionHook; payloads: HookPayload[] } {
  const payloads: HookPayload[] = []
  return {
    payloads,
    hook: hook('PostToolUseFailure', (payload) => {
      payloads.push(payload)
      return undefined
    }),
  }
}

describe('A11 mergePreToolUse', () => {
  const base: PreToolUseOutcome = { decision: undefined, reason: undefined, updatedInput: undefined, hasUpdatedInput: false, contexts: [] }
  it.each<[string, HookOutput[], Partial<PreToolUseOutcome>]>([
    ['nothing from no hooks', [], {}],
    ['allow with its default reason', [{ permissionDecision: 'allow' }], { decision: 'allow', reason: 'Tool was allowed by PreToolUse hook' }],
    [
      'ask beats allow, with the ask reason',
      [{ permissionDecision: 'allow', reason: 'fine' }, { permissionDecision: 'ask' }],
      { decision: 'ask', reason: 'Tool requires approval by PreToolUse hook' },
    ],
    [
      'deny beats a later ask',
      [
        { permissionDecision: 'deny', reason: 'no' },
        { permissionDecision: 'ask', reason: 'maybe' },
      ],
      { decision: 'deny', reason: 'no' },
    ],
    [
      'deny beats an earlier ask',
      [
        { permissionDecision: 'ask', reason: 'maybe' },
        { permissionDecision: 'deny', reason: 'no' },
      ],
      { decision: 'deny', reason: 'no' },
    ],
    ['deny beats allow', [{ permissionDecision: 'allow' }, { permissionDecision: 'deny' }], { decision: 'deny', reason: 'Blocked by PreToolUse hook' }],
    [
      'the first deny keeps its reason',
      [
        { permissionDecision: 'deny', reason: 'first' },
        { permissionDecision: 'deny', reason: 'second' },
      ],
      { decision: 'deny', reason: 'first' },
    ],
    ['contexts concatenate in order, empty ones skipped', [{ additionalContext: 'a' }, { additionalContext: '' }, { additionalContext: 'b' }], { contexts: ['a', 'b'] }],
    ['the last updatedInput wins', [{ updatedInput: { v: 1 } }, {}, { updatedInput: { v: 2 } }], { updatedInput: { v: 2 }, hasUpdatedInput: true }],
  ])('A11 merges %s', (_title, outputs, expected) => {
    expect(mergePreToolUse(outputs)).toEqual({ ...base, ...expected })
  })
})

describe('R29 hook additional context reaches the model', () => {
  it('R29 numbers PreToolUse then PostToolUse contexts after a blank line, byte for byte', async () => {
    const multiByte = 'ファイルは読み取り専用です 🔒\nsecond line'
    const hooks = [context('PreToolUse', 'pre one'), context('PreToolUse', multiByte), context('PostToolUse', 'post')]
    const result = await build([readTool], hooks).execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's' })
    const expected = `contents of a\n\n[Hook additional context]\n#1\npre one\n#2\n${multiByte}\n#3\npost`
    expect(Buffer.from(textOf(result.modelContent), 'utf8').equals(Buffer.from(expected, 'utf8'))).toBe(true)
    expect(result.hookContext).toEqual(['pre one', multiByte, 'post'])
  })

  it('R29 a failed call carries PreToolUse and PostToolUseFailure contexts', async () => {
    const hooks = [context('PreToolUse', 'check the path'), context('PostToolUseFailure', 'path is on a read-only mount')]
    const result = await build([editTool], hooks).execute({ id: 'e', name: 'Edit', input: { file_path: 'y', fail: true } }, { sessionId: 's', permissionMode: 'bypassPermissions' })
    expect(result.status).toBe('failed')
    expect(result.modelContent).toBe('cannot edit y\n\n[Hook additional context]\n#1\ncheck the path\n#2\npath is on a read-only mount')
  })

  it('R29 a call refused by the user carries the PreToolUse context', async () => {
    const broker = new InMemoryPermissionBroker()
    const sink = answeringSink(broker, { ...CLIENT_DENY, message: 'not now' })
    const result = await build([editTool], [context('PreToolUse', 'this edits generated code')]).execute(
      { id: 'e', name: 'Edit', input: { file_path: 'y' } },
      { sessionId: 's', broker, emit: sink.emit },
    )
    expect([result.status, result.modelContent]).toEqual(['denied', 'not now\n\n[Hook additional context]\n#1\nthis edits generated code'])
  })

  it('R29 a call blocked by PreToolUse carries the blocking hook context', async () => {
    const blocker = context('PreToolUse', 'use the staging bucket', { permissionDecision: 'deny', reason: 'prod bucket' })
    const result = await build([readTool], [blocker]).execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's' })
    expect([result.status, result.modelContent]).toEqual(['denied', 'prod bucket\n\n[Hook additional context]\n#1\nuse the staging bucket'])
  })

  it('R29 a call blocked by PostToolUse carries its context and the reason', async () => {
    const blocker = context('PostToolUse', 'secrets found in output', { decision: 'block', reason: 'output leaks a token' })
    const result = await build([readTool], [blocker]).execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's' })
    expect([result.status, result.success, result.isError]).toEqual(['failed', false, true])
    expect(result.error?.stage).toBe('post_tool_use')
    const [text, hookContext] = textOf(result.modelContent).split('\n\n[Hook additional context]\n')
    expect(text).toContain('output leaks a token')
    expect(hookContext).toBe('#1\nsecrets found in output')
  })

  it('R29 a PostToolUse block without a reason still tells the model it was blocked', async () => {
    const result = await build([readTool], [hook('PostToolUse', () => ({ decision: 'block' }))]).execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's' })
    expect(result.status).toBe('failed')
    expect(result.modelContent).toContain('Blocked by PostToolUse hook')
  })
})

describe('hook additional context is bounded', () => {
  it('cuts a 1 MiB context to 10,000 characters in the model content and the stored hook context', async () => {
    const huge = 'h'.repeat(1024 * 1024)
    const result = await build([readTool], [context('PostToolUse', huge)]).execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's' })
    const capped = `${'h'.repeat(10_000)}\n\n[Hook additional context truncated: originalChars=1048576, cutChars=1038576, maxCharsPerHook=10000]`
    // Compared as booleans: a failing diff of a megabyte helps no one.
    expect(result.hookContext.length === 1 && result.hookContext[0] === capped).toBe(true)
    expect(result.modelContent === `contents of a\n\n[Hook additional context]\n#1\n${capped}`).toBe(true)
  })

  it('keeps what all hooks of one call add near 50,000 characters, whatever the number of hooks', async () => {
    const hooks = Array.from({ length: 12 }, (_, index) => context(index % 2 === 0 ? 'PreToolUse' : 'PostToolUse', String(index % 10).repeat(200_000)))
    const result = await build([readTool], hooks).execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's' })
    expect(result.status).toBe('succeeded')
    expect(result.hookContext).toHaveLength(12)
    expect(textOf(result.modelContent).length).toBeLessThan(52_000)
    expect(result.hookContext[11]).toBe('[Hook additional context truncated: originalChars=200000, cutChars=200000, maxCharsPerCall=50000]')
  })
})

describe('R24 PostToolUseFailure hooks', () => {
  it('R24 a cancellation runs them with isInterrupt true', async () => {
    const recorder = failureRecorder()
    const turn = new AbortController()
    const emit = (event: { type: string }): void => {
      if (event.type === 'ToolCallStarted') queueMicrotask(() => turn.abort())
    }
    const result = await build([sleepTool()], [recorder.hook]).execute({ id: 'z', name: 'Sleep', input: { ms: 60_000 } }, { sessionId: 's', signal: turn.signal, emit })
    expect(result.status).toBe('cancelled')
    expect(recorder.payloads.map((p) => [p.hookEventName, p.isInterrupt, p.error])).toEqual([['PostToolUseFailure', true, 'Tool execution cancelled']])
  })

  it('R24 a timeout runs them with isInterrupt false (fake time)', async () => {
    vi.useFakeTimers(FAKE_TIMERS)
    const recorder = failureRecorder()
    const sleep = sleepTool('Sleep', { timeout: { kind: 'deadline', defaultMs: 60_000 } })
    const pending = build([sleep], [recorder.hook]).execute({ id: 'z', name: 'Sleep', input: { ms: 600_000 } }, { sessionId: 's' })
    await vi.advanceTimersByTimeAsync(60_000)
    const result = await pending
    expect([result.status, result.modelContent]).toEqual(['timed_out', 'Tool execution timed out after 60000ms'])
    expect(recorder.payloads.map((p) => [p.isInterrupt, p.error])).toEqual([[false, 'Tool execution timed out after 60000ms']])
  })

  it('R24 a timeout runs them with isInterrupt false (real time)', async () => {
    const recorder = failureRecorder()
    const sleep = sleepTool('Sleep', { timeout: { kind: 'deadline', defaultMs: 20 } })
    const result = await build([sleep], [recorder.hook]).execute({ id: 'z', name: 'Sleep', input: { ms: 5_000 } }, { sessionId: 's' })
    expect(result.status).toBe('timed_out')
    expect(recorder.payloads.map((p) => p.isInterrupt)).toEqual([false])
  })

  it('R24 a handler error runs them with isInterrupt false and the error text', async () => {
    const recorder = failureRecorder()
    const result = await build([editTool], [recorder.hook]).execute({ id: 'e', name: 'Edit', input: { file_path: 'y', fail: true } }, { sessionId: 's', permissionMode: 'bypassPermissions' })
    expect(result.status).toBe('failed')
    expect(recorder.payloads.map((p) => [p.isInterrupt, p.error, p.toolInput])).toEqual([[false, 'cannot edit y', { file_path: 'y', fail: true }]])
  })

  it('R24 a successful call does not run them', async () => {
    const recorder = failureRecorder()
    await build([readTool], [recorder.hook]).execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's' })
    expect(recorder.payloads).toEqual([])
  })
})

describe('hooks through the executor', () => {
  it('A7 a throwing hook is reported as HookRunFailed and never fails the call', async () => {
    const { events, emit } = collectEvents()
    const hooks = [
      hook(
        'PreToolUse',
        () => {
          throw new Error('hook crashed')
        },
        'Read',
        'broken-pre',
      ),
      hook('PostToolUse', () => Promise.reject(new Error('post crashed')), '*', 'broken-post'),
    ]
    const result = await build([readTool], hooks).execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's', emit })
    expect([result.status, result.modelContent]).toEqual(['succeeded', 'contents of a'])
    expect(ofType(events, 'HookRunFailed').map((e) => [e.hook, e.hookEvent, e.error])).toEqual([
      ['broken-pre', 'PreToolUse', 'hook crashed'],
      ['broken-post', 'PostToolUse', 'post crashed'],
    ])
  })

  it('R12 runs PreToolUse hooks before permission and PostToolUse hooks after the handler', async () => {
    const { events, emit } = collectEvents()
    const deploy = noteTool('Deploy', 'network')
    const hooks = [hook('PreToolUse', () => ({ permissionDecision: 'allow' })), hook('PostToolUse', () => undefined)]
    await build([deploy.entry], hooks).execute({ id: 'd', name: 'Deploy', input: {} }, { sessionId: 's', emit })
    const order = events.filter((e) => e.type === 'HookRunStarted' || e.type === 'ToolCallStarted' || e.type === 'ToolCallResult')
    expect(order.map((e) => (e.type === 'HookRunStarted' ? e.hookEvent : e.type))).toEqual(['PreToolUse', 'ToolCallStarted', 'PostToolUse', 'ToolCallResult'])
  })
})
