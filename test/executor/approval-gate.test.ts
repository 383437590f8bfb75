import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import type { HookOutput, PermissionAnswer, TurnContext } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { type Executor } from '../../src/executor/executor.js'
import { createFunctionHookRunner, type FunctionHook } from '../../src/hooks/function-hook-runner.js'
import { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { FAKE_TIMERS, CLIENT_ALLOW, CLIENT_DENY, answeringSink, delay, hook, noteTool, ofType, settle } from '../support/permission-tools.js'
import { collectEvents } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

const HOUR_MS = 3_600_000

afterEach(() => {
  vi.useRealTimers()
})

function build(tools: readonly ToolEntry[], hooks?: readonly FunctionHook[]): Executor {
  return createTestExecutor({ registry: new InMemoryToolRegistry(tools), hooks: hooks === undefined ? undefined : createFunctionHookRunner(hooks) })
}

/** A PermissionRequest hook that answers after `ms` (0: at once) and says when it did. */
function permissionHook(output: HookOutput | undefined, ms: number): { hook: FunctionHook; answered: Promise<void> } {
  let markAnswered: () => void = () => {}
  const answered = new Promise<void>((resolve) => {
    markAnswered = resolve
  })
  const run = async (): Promise<HookOutput | undefined> => {
    if (ms > 0) await delay(ms)
    markAnswered()
    return output
  }
  return { hook: hook('PermissionRequest', run), answered }
}

/** The result promise, with a flag that says whether it has settled yet. */
function track(pending: Promise<ToolExecutionResult>): { readonly done: () => boolean; readonly result: Promise<ToolExecutionResult> } {
  let done = false
  const result = pending.then((value) => {
    done = true
    return value
  })
  return { done: () => done, result }
}

const DEPLOY_CALL = { id: 'd1', name: 'Deploy', input: { note: 'prod' } }

describe('R15 prepareApproval', () => {
  it('R15 narrowing to allow runs without asking, with the resolved input', async () => {
    const seen: unknown[] = []
    const deploy = noteTool('Deploy', 'network', {
      resolveInput: (input) => ({ note: String((input as { note?: string }).note).toUpperCase() }),
      prepareApproval: (input) => {
        seen.push(input)
        return { behavior: 'allow' }
      },
    })
    const { events, emit } = collectEvents()
    const result = await build([deploy.entry]).execute(DEPLOY_CALL, { sessionId: 's', emit })
    expect([result.status, result.permission]).toEqual(['succeeded', 'none'])
    expect(ofType(events, 'PermissionRequested')).toEqual([])
    expect(seen).toEqual([{ note: 'PROD' }])
    expect(deploy.inputs).toEqual([{ note: 'PROD' }])
  })

  it('R15 attaches the preview to the request the client sees', async () => {
    const preview = { title: 'Deploy to prod', text: 'kubectl apply -f prod.yaml' }
    const deploy = noteTool('Deploy', 'network', { prepareApproval: () => ({ behavior: 'ask', preview }) })
    const broker = new InMemoryPermissionBroker()
    const pendingPreviews: unknown[] = []
    const sink = answeringSink(broker, (event) => {
      pendingPreviews.push(broker.pending('s').find((request) => request.permissionId === event.permissionId)?.preview)
      return CLIENT_ALLOW
    })
    const result = await build([deploy.entry]).execute(DEPLOY_CALL, { sessionId: 's', broker, emit: sink.emit })
    expect(ofType(sink.events, 'PermissionRequested')[0]?.preview).toEqual(preview)
    expect(pendingPreviews).toEqual([preview])
    expect([result.status, result.permission]).toEqual(['succeeded', 'approved'])
  })

  it('R15 a throwing prepareApproval still asks, without a preview, and a denial holds', async () => {
    const deploy = noteTool('Deploy', 'network', {
      prepareApproval: () => {
        throw new Error('preview broke')
      },
    })
    const broker = new InMemoryPermissionBroker()
    const sink = answeringSink(broker, CLIENT_DENY)
    const result = await build([deploy.entry]).execute(DEPLOY_CALL, { sessionId: 's', broker, emit: sink.emit })
    const requests = ofType(sink.events, 'PermissionRequested')
    expect(requests.length).toBe(1)
    expect(requests[0]?.preview).toBeUndefined()
    expect([result.status, result.modelContent]).toEqual(['denied', 'Permission denied for Deploy'])
    expect(deploy.inputs).toEqual([])
  })

  it('R15 cannot lift a deny verdict: prepareApproval is only consulted for an ask', async () => {
    const prepare = vi.fn(() => ({ behavior: 'allow' as const }))
    const deploy = noteTool('Deploy', 'network', { prepareApproval: prepare })
    const result = await build([deploy.entry]).execute(DEPLOY_CALL, { sessionId: 's', permissionMode: 'dontAsk' })
    expect(result.status).toBe('denied')
    expect(prepare).not.toHaveBeenCalled()
  })
})

describe('R16 the client races the PermissionRequest hooks', () => {
  it('R16 registers the ticket before PermissionRequested: an answer from inside the sink is not dropped', async () => {
    const broker = new InMemoryPermissionBroker()
    const visibleAtEmit: boolean[] = []
    const sink = answeringSink(broker, (event) => {
      visibleAtEmit.push(broker.pending('s').some((request) => request.permissionId === event.permissionId))
      return CLIENT_ALLOW
    })
    const deploy = noteTool('Deploy', 'network')
    const result = await build([deploy.entry]).execute(DEPLOY_CALL, { sessionId: 's', broker, emit: sink.emit })
    expect(visibleAtEmit).toEqual([true])
    expect(sink.outcomes.map((outcome) => outcome.kind)).toEqual(['settled'])
    expect(result.status).toBe('succeeded')
  })

  it('R16 client first, real time: the late hook changes nothing', async () => {
    const late = permissionHook({ decision: 'deny', message: 'hook says no' }, 20)
    const broker = new InMemoryPermissionBroker()
    const sink = answeringSink(broker, CLIENT_ALLOW)
    const deploy = noteTool('Deploy', 'network')
    const result = await build([deploy.entry], [late.hook]).execute(DEPLOY_CALL, { sessionId: 's', broker, emit: sink.emit })
    await late.answered
    await settle()
    expect(result.status).toBe('succeeded')
    const resolved = ofType(sink.events, 'PermissionResolved')
    expect(resolved.map((event) => [event.decision, event.decidedBy])).toEqual([['allow', 'client']])
    const permissionId = resolved[0]?.permissionId ?? ''
    expect(broker.answer(permissionId, CLIENT_ALLOW)).toEqual({ kind: 'same', answer: CLIENT_ALLOW })
    expect(deploy.inputs.length).toBe(1)
  })

  it('R16 client first, fake time: a hook answering ten minutes later changes nothing', async () => {
    vi.useFakeTimers(FAKE_TIMERS)
    const late = permissionHook({ decision: 'deny' }, 600_000)
    const broker = new InMemoryPermissionBroker()
    const sink = answeringSink(broker, CLIENT_ALLOW)
    const result = await build([noteTool('Deploy', 'network').entry], [late.hook]).execute(DEPLOY_CALL, { sessionId: 's', broker, emit: sink.emit })
    expect(result.status).toBe('succeeded')
    await vi.advanceTimersByTimeAsync(600_000)
    await late.answered
    expect(ofType(sink.events, 'PermissionResolved').map((event) => event.decidedBy)).toEqual(['client'])
  })

  it('R16 hook first: decided by the hook, and the client later gets conflict or same', async () => {
    const quick = permissionHook({ decision: 'allow' }, 0)
    const broker = new InMemoryPermissionBroker()
    const sink = answeringSink(broker, undefined)
    const result = await build([noteTool('Deploy', 'network').entry], [quick.hook]).execute(DEPLOY_CALL, { sessionId: 's', broker, emit: sink.emit })
    expect(result.status).toBe('succeeded')
    const resolved = ofType(sink.events, 'PermissionResolved')
    expect(resolved.map((event) => [event.decision, event.decidedBy, event.reason])).toEqual([['allow', 'hook', 'Allowed by PermissionRequest hook']])
    const permissionId = ofType(sink.events, 'PermissionRequested')[0]?.permissionId ?? ''
    const late = broker.answer(permissionId, CLIENT_DENY)
    expect(late.kind).toBe('conflict')
    expect(late.kind === 'conflict' ? late.answer.decidedBy : undefined).toBe('hook')
    expect(broker.answer(permissionId, CLIENT_ALLOW).kind).toBe('same')
    expect(broker.pending()).toEqual([])
  })

  it('R16 a hook deny that wins reaches the model with the A11 text', async () => {
    const quick = permissionHook({ decision: 'deny' }, 0)
    const broker = new InMemoryPermissionBroker()
    const result = await build([noteTool('Deploy', 'network').entry], [quick.hook]).execute(DEPLOY_CALL, { sessionId: 's', broker })
    expect([result.status, result.modelContent]).toEqual(['denied', 'Denied by PermissionRequest hook'])
  })
})

describe('R17 no permission client', () => {
  it.each<[string, FunctionHook[] | undefined]>([
    ['no hook', undefined],
    ['a hook that says nothing', [hook('PermissionRequest', () => undefined)]],
    ['a hook that throws', [hook('PermissionRequest', () => Promise.reject(new Error('hook crashed')))]],
  ])('R17 denies a non-read-only call with exactly the no-client text when there is %s', async (_title, hooks) => {
    const deploy = noteTool('Deploy', 'network')
    const { events, emit } = collectEvents()
    const result = await build([deploy.entry], hooks).execute(DEPLOY_CALL, { sessionId: 's', emit })
    expect([result.status, result.modelContent]).toEqual(['denied', 'No permission client configured'])
    expect(ofType(events, 'PermissionResolved').map((event) => event.decidedBy)).toEqual(['broker'])
    expect(deploy.inputs).toEqual([])
  })

  it.each([0, 15])('R17 a PermissionRequest hook that allows (after %i ms) lets the call run headless', async (ms) => {
    const allow = permissionHook({ decision: 'allow' }, ms)
    const deploy = noteTool('Deploy', 'network')
    const { events, emit } = collectEvents()
    const result = await build([deploy.entry], [allow.hook]).execute(DEPLOY_CALL, { sessionId: 's', emit })
    expect([result.status, result.modelContent]).toEqual(['succeeded', 'done Deploy'])
    expect(ofType(events, 'PermissionResolved').map((event) => event.decidedBy)).toEqual(['hook'])
  })
})

describe('R18 the approval wait', () => {
  function startPending(turn: Omit<TurnContext, 'sessionId' | 'broker'>): { broker: InMemoryPermissionBroker; events: ExecutorEvent[]; call: ReturnType<typeof track> } {
    const broker = new InMemoryPermissionBroker()
    const { events, emit } = collectEvents()
    const call = track(build([noteTool('Deploy', 'network').entry]).execute(DEPLOY_CALL, { sessionId: 's', broker, emit, ...turn }))
    return { broker, events, call }
  }

  it('R18 permissionTimeoutMs denies with decidedBy timeout, not a moment earlier (fake time)', async () => {
    vi.useFakeTimers(FAKE_TIMERS)
    const { broker, events, call } = startPending({ permissionTimeoutMs: 60_000 })
    await vi.advanceTimersByTimeAsync(59_999)
    expect(call.done()).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const result = await call.result
    expect([result.status, result.modelContent]).toEqual(['denied', 'Permission request timed out after 60000ms'])
    expect(ofType(events, 'PermissionResolved').map((event) => event.decidedBy)).toEqual(['timeout'])
    expect(broker.pending()).toEqual([])
    expect(result.perf.permissionWaitMs).toBe(60_000)
  })

  it('R18 permissionTimeoutMs denies with decidedBy timeout (real time)', async () => {
    const { events, call } = startPending({ permissionTimeoutMs: 20 })
    const result = await call.result
    expect(result.status).toBe('denied')
    expect(ofType(events, 'PermissionResolved').map((event) => event.decidedBy)).toEqual(['timeout'])
  })

  it('R18 without a limit the request stays pending for an hour until the turn is aborted (fake time)', async () => {
    vi.useFakeTimers(FAKE_TIMERS)
    const turn = new AbortController()
    const { broker, events, call } = startPending({ signal: turn.signal })
    await vi.advanceTimersByTimeAsync(HOUR_MS)
    expect(call.done()).toBe(false)
    expect(broker.pending('s').length).toBe(1)
    turn.abort()
    const result = await call.result
    expect([result.status, result.modelContent]).toEqual(['cancelled', 'Tool execution cancelled'])
    expect(ofType(events, 'PermissionResolved').map((event) => event.decidedBy)).toEqual(['abort'])
    expect(broker.pending()).toEqual([])
  })

  it('R18 without a limit the request waits in real time too, and an abort ends it', async () => {
    const turn = new AbortController()
    const { events, call } = startPending({ signal: turn.signal })
    await delay(30)
    expect(call.done()).toBe(false)
    turn.abort()
    expect((await call.result).status).toBe('cancelled')
    expect(ofType(events, 'PermissionResolved').map((event) => event.decidedBy)).toEqual(['abort'])
  })

  it('R18 a client answer after the timeout is a conflict with the timeout decision', async () => {
    const { broker, events, call } = startPending({ permissionTimeoutMs: 5 })
    await call.result
    const permissionId = ofType(events, 'PermissionRequested')[0]?.permissionId ?? ''
    const late: PermissionAnswer = { decision: 'allow', decidedBy: 'client' }
    const outcome = broker.answer(permissionId, late)
    expect(outcome.kind === 'conflict' ? outcome.answer.decidedBy : outcome.kind).toBe('timeout')
  })
})
