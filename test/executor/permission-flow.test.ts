import fs from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { HookOutput, PermissionAnswer, PermissionMode, PermissionService } from '../../src/contracts/ports.js'
import { ToolexecError } from '../../src/contracts/errors.js'
import { createModePermissionService } from '../../src/permissions/mode-permission-service.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { TURN_STOP_TEXT } from '../../src/executor/batch-runner.js'
import { type Executor } from '../../src/executor/executor.js'
import { createFunctionHookRunner, type FunctionHook } from '../../src/hooks/function-hook-runner.js'
import { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { CLIENT_ALLOW, answeringSink, exitPlanModeTool, hook, noteTool, ofType, tempDir, writeTool } from '../support/permission-tools.js'
import { readTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

let workspace: string
let memoryDir: string

beforeAll(async () => {
  workspace = await tempDir('perm-ws')
  memoryDir = await tempDir('perm-memory')
})

interface Setup {
  readonly tools: readonly ToolEntry[]
  readonly hooks?: readonly FunctionHook[]
  readonly memoryDir?: string
}

function build(setup: Setup): { executor: Executor; broker: InMemoryPermissionBroker } {
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry(setup.tools),
    hooks: setup.hooks === undefined ? undefined : createFunctionHookRunner(setup.hooks),
    memoryDir: setup.memoryDir,
  })
  return { executor, broker: new InMemoryPermissionBroker() }
}

function preToolUse(output: HookOutput): FunctionHook {
  return hook('PreToolUse', () => output)
}

describe('R13 what was approved is what runs', () => {
  it('R13 gives the PermissionRequested event and the handler the same resolved input, byte for byte', async () => {
    const write = writeTool()
    const { executor, broker } = build({ tools: [write.entry] })
    const sink = answeringSink(broker, CLIENT_ALLOW)
    const result = await executor.execute({ id: 'w1', name: 'Write', input: { file_path: '  notes/a.txt  ', content: 'hi' } }, { sessionId: 's', workspace, broker, emit: sink.emit })
    expect(result.status).toBe('succeeded')
    const [requested] = ofType(sink.events, 'PermissionRequested')
    expect(JSON.stringify(requested?.input)).toBe(JSON.stringify(write.inputs[0]))
    expect(write.inputs).toEqual([{ file_path: path.join(workspace, 'notes/a.txt'), content: 'hi' }])
    expect(await fs.readFile(path.join(workspace, 'notes/a.txt'), 'utf8')).toBe('hi')
  })

  it('R13 validates and resolves a PreToolUse updatedInput again, and the hook, request and handler agree', async () => {
    const write = writeTool()
    const seenByHook: unknown[] = []
    const rewrite = hook('PreToolUse', (payload) => {
      seenByHook.push(payload.toolInput)
      return { updatedInput: { file_path: ' rewritten.txt ', content: 'new' } }
    })
    const { executor, broker } = build({ tools: [write.entry], hooks: [rewrite] })
    const sink = answeringSink(broker, CLIENT_ALLOW)
    await executor.execute({ id: 'w2', name: 'Write', input: { file_path: 'original.txt' } }, { sessionId: 's', workspace, broker, emit: sink.emit })
    expect(seenByHook).toEqual([{ file_path: path.join(workspace, 'original.txt') }])
    const resolved = { file_path: path.join(workspace, 'rewritten.txt'), content: 'new' }
    expect(write.inputs).toEqual([resolved])
    const [requested] = ofType(sink.events, 'PermissionRequested')
    expect(JSON.stringify(requested?.input)).toBe(JSON.stringify(write.inputs[0]))
    const [started] = ofType(sink.events, 'ToolCallStarted')
    expect(started?.input).toEqual(resolved)
  })

  it('R13 R26 fails an updatedInput that breaks the schema with the projected message (not the first-validation text), before asking', async () => {
    const write = writeTool()
    const { executor, broker } = build({ tools: [write.entry], hooks: [preToolUse({ updatedInput: { file_path: 7 } })] })
    const sink = answeringSink(broker, CLIENT_ALLOW)
    const result = await executor.execute({ id: 'w3', name: 'Write', input: { file_path: 'x.txt' } }, { sessionId: 's', workspace, broker, emit: sink.emit })
    expect(result.modelContent).toBe(
      "The PreToolUse hook's updatedInput is invalid: InputValidationError: Write failed due to the following issue: " +
        'The parameter `file_path` type is expected as `string` but provided as `number`',
    )
    expect(result.modelContent).not.toContain('<tool_use_error>')
    expect(result.error?.stage).toBe('validation')
    expect(ofType(sink.events, 'PermissionRequested')).toEqual([])
    expect(write.inputs).toEqual([])
  })
})

describe('R14 the PreToolUse decision laid over the verdict', () => {
  const cases: Array<{ title: string; tool: 'plain' | 'alwaysAsk' | 'read'; mode: PermissionMode; hookOutput: HookOutput; asks: boolean; status: string; content: string }> = [
    { title: 'allow waives an ordinary ask', tool: 'plain', mode: 'default', hookOutput: { permissionDecision: 'allow' }, asks: false, status: 'succeeded', content: 'done Deploy' },
    { title: 'allow cannot waive alwaysAsk', tool: 'alwaysAsk', mode: 'default', hookOutput: { permissionDecision: 'allow' }, asks: true, status: 'succeeded', content: 'done Deploy' },
    {
      title: 'allow cannot waive alwaysAsk even in bypassPermissions',
      tool: 'alwaysAsk',
      mode: 'bypassPermissions',
      hookOutput: { permissionDecision: 'allow' },
      asks: true,
      status: 'succeeded',
      content: 'done Deploy',
    },
    { title: 'allow cannot waive a deny verdict', tool: 'plain', mode: 'dontAsk', hookOutput: { permissionDecision: 'allow' }, asks: false, status: 'denied', content: 'Permission denied for Deploy' },
    { title: 'ask turns an allow into a confirmation', tool: 'read', mode: 'default', hookOutput: { permissionDecision: 'ask' }, asks: true, status: 'succeeded', content: 'done Deploy' },
    {
      title: 'ask turns a bypass allow into a confirmation',
      tool: 'plain',
      mode: 'bypassPermissions',
      hookOutput: { permissionDecision: 'ask' },
      asks: true,
      status: 'succeeded',
      content: 'done Deploy',
    },
    {
      title: 'deny blocks with the hook reason',
      tool: 'read',
      mode: 'bypassPermissions',
      hookOutput: { permissionDecision: 'deny', reason: 'no deploys on Friday' },
      asks: false,
      status: 'denied',
      content: 'no deploys on Friday',
    },
    {
      title: 'deny without a reason says Blocked by PreToolUse hook',
      tool: 'plain',
      mode: 'default',
      hookOutput: { permissionDecision: 'deny' },
      asks: false,
      status: 'denied',
      content: 'Blocked by PreToolUse hook',
    },
  ]

  it.each(cases)('R14 $title', async ({ tool, mode, hookOutput, asks, status, content }) => {
    const extra = tool === 'alwaysAsk' ? { permission: { sideEffectScope: 'network' as const, alwaysAsk: true } } : {}
    const deploy = noteTool('Deploy', tool === 'read' ? 'none' : 'network', extra)
    const { executor, broker } = build({ tools: [deploy.entry], hooks: [preToolUse(hookOutput)] })
    const sink = answeringSink(broker, CLIENT_ALLOW)
    const result = await executor.execute({ id: 'd', name: 'Deploy', input: {} }, { sessionId: 's', permissionMode: mode, broker, emit: sink.emit })
    expect(ofType(sink.events, 'PermissionRequested').length).toBe(asks ? 1 : 0)
    expect([result.status, result.modelContent]).toEqual([status, content])
    expect(deploy.inputs.length).toBe(status === 'succeeded' ? 1 : 0)
  })

  it('R14 asks with the A11 reason when a PreToolUse ask lifts an allow', async () => {
    const { executor, broker } = build({ tools: [readTool], hooks: [preToolUse({ permissionDecision: 'ask' })] })
    const sink = answeringSink(broker, CLIENT_ALLOW)
    await executor.execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's', broker, emit: sink.emit })
    expect(ofType(sink.events, 'PermissionRequested')[0]?.reason).toBe('Tool requires approval by PreToolUse hook')
  })

  it('R14 reports a PreToolUse deny as a PermissionResolved decided by the hook', async () => {
    const { executor, broker } = build({ tools: [readTool], hooks: [preToolUse({ permissionDecision: 'deny', reason: 'nope' })] })
    const sink = answeringSink(broker, CLIENT_ALLOW)
    const result = await executor.execute({ id: 'r', name: 'Read', input: { file_path: 'a' } }, { sessionId: 's', broker, emit: sink.emit })
    expect(ofType(sink.events, 'PermissionResolved').map((e) => [e.decision, e.decidedBy, e.reason])).toEqual([['deny', 'hook', 'nope']])
    expect(ofType(sink.events, 'ToolCallStarted')).toEqual([])
    expect(result.permission).toBe('denied')
  })
})

describe('A9 memory files', () => {
  type Case = { title: string; file: () => string; mode?: PermissionMode; alwaysAsk?: boolean; hookAsk?: boolean; asks: boolean; status: string }
  const cases: Case[] = [
    { title: 'a .md file in memoryDir is written without asking', file: () => path.join(memoryDir, 'notes.md'), asks: false, status: 'succeeded' },
    { title: 'a relative path into memoryDir counts too', file: () => path.relative(workspace, path.join(memoryDir, 'sub', 'rel.md')), asks: false, status: 'succeeded' },
    { title: 'plan mode deny does not cover a memory file', file: () => path.join(memoryDir, 'plan.md'), mode: 'plan', asks: false, status: 'succeeded' },
    { title: 'a file that is not .md asks', file: () => path.join(memoryDir, 'notes.txt'), asks: true, status: 'denied' },
    { title: 'a .md file outside memoryDir asks', file: () => path.join(workspace, 'notes.md'), asks: true, status: 'denied' },
    { title: 'a path escaping memoryDir with .. asks', file: () => path.join(memoryDir, '..', 'escape.md'), asks: true, status: 'denied' },
    { title: 'an alwaysAsk Write still asks', file: () => path.join(memoryDir, 'always.md'), alwaysAsk: true, asks: true, status: 'denied' },
    { title: 'an alwaysAsk Write still asks in plan mode', file: () => path.join(memoryDir, 'always-plan.md'), mode: 'plan', alwaysAsk: true, asks: true, status: 'denied' },
    { title: 'a PreToolUse ask still asks', file: () => path.join(memoryDir, 'hooked.md'), hookAsk: true, asks: true, status: 'denied' },
    { title: 'a deny that is not plan mode still denies', file: () => path.join(memoryDir, 'dont.md'), mode: 'dontAsk', asks: false, status: 'denied' },
  ]

  it.each(cases)('A9 $title', async ({ file, mode, alwaysAsk, hookAsk, asks, status }) => {
    const write = writeTool({ alwaysAsk })
    const hooks = hookAsk === true ? [preToolUse({ permissionDecision: 'ask' })] : []
    const { executor, broker } = build({ tools: [write.entry], hooks, memoryDir })
    // The client denies whatever it is asked, so "asked" and "ran" cannot be confused.
    const sink = answeringSink(broker, { decision: 'deny', decidedBy: 'client', message: 'client said no' })
    const input = { file_path: file(), content: 'remember' }
    const result = await executor.execute({ id: 'm', name: 'Write', input }, { sessionId: 's', workspace, permissionMode: mode, broker, emit: sink.emit })
    expect(ofType(sink.events, 'PermissionRequested').length).toBe(asks ? 1 : 0)
    expect(result.status).toBe(status)
    if (status !== 'succeeded') return
    expect(await fs.readFile(path.resolve(workspace, input.file_path), 'utf8')).toBe('remember')
  })
})

describe('denials reach the model', () => {
  it.each<[string, PermissionAnswer, string]>([
    ['the answer message', { decision: 'deny', decidedBy: 'client', message: 'Not in production, please.' }, 'Not in production, please.'],
    ['Permission denied for <name> without one', { decision: 'deny', decidedBy: 'client' }, 'Permission denied for Deploy'],
  ])('R14 a deny answer gives the model %s', async (_title, answer, content) => {
    const deploy = noteTool('Deploy', 'network')
    const { executor, broker } = build({ tools: [deploy.entry] })
    const sink = answeringSink(broker, answer)
    const result = await executor.execute({ id: 'd', name: 'Deploy', input: {} }, { sessionId: 's', broker, emit: sink.emit })
    expect([result.status, result.modelContent, result.permission]).toEqual(['denied', content, 'denied'])
    expect(deploy.inputs).toEqual([])
  })

  // 1,095 characters: 219 words of three digits, each after a run of newlines, tabs and spaces, and a newline at the end.
  const runs = ['\n', '\t', '\n\t ', '  ', '\r\n\t']
  const words = Array.from({ length: 219 }, (_, index) => String(index).padStart(3, '0'))
  const messy = `${words.map((word, index) => `${runs[index % runs.length] as string}${word}`).join('')}\n`
  const cut = `${words.join(' ').slice(0, 497)}...`

  it('R26 the messy reason is 1,095 characters and its projection is 497 of them plus ...', () => {
    expect(messy).toHaveLength(1_095)
    expect(cut).toHaveLength(500)
    expect(cut.endsWith(' 122 123 1...')).toBe(true)
  })

  it.each<[string, PermissionAnswer]>([
    ["a person's deny message", { decision: 'deny', decidedBy: 'client', message: messy }],
    ["a PermissionRequest hook's message", { decision: 'deny', decidedBy: 'hook', message: messy }],
  ])('R26 %s reaches the model projected; the event keeps it whole', async (_title, answer) => {
    const { executor, broker } = build({ tools: [noteTool('Deploy', 'network').entry] })
    const sink = answeringSink(broker, answer)
    const result = await executor.execute({ id: 'd', name: 'Deploy', input: {} }, { sessionId: 's', broker, emit: sink.emit })
    expect(result.modelContent).toBe(cut)
    expect(result.error?.message).toBe(messy)
    expect(ofType(sink.events, 'PermissionResolved').map((event) => event.reason)).toEqual([messy])
  })

  it("R26 a rule's deny reason reaches the model projected", async () => {
    const executor = createTestExecutor({
      registry: new InMemoryToolRegistry([noteTool('Deploy', 'network').entry]),
      permissions: { evaluate: () => Promise.resolve({ behavior: 'deny', ruleId: 'policy', reason: messy }) },
    })
    const result = await executor.execute({ id: 'd', name: 'Deploy', input: {} }, { sessionId: 's' })
    expect([result.status, result.modelContent]).toEqual(['denied', cut])
  })

  it("R26 a PreToolUse hook's deny reason reaches the model projected", async () => {
    const { executor } = build({ tools: [noteTool('Deploy', 'none').entry], hooks: [preToolUse({ permissionDecision: 'deny', reason: messy })] })
    const result = await executor.execute({ id: 'd', name: 'Deploy', input: {} }, { sessionId: 's' })
    expect([result.status, result.modelContent]).toEqual(['denied', cut])
  })

  it('R26 a PostToolUse block reason reaches the model projected after its prefix', async () => {
    const { executor } = build({ tools: [noteTool('Deploy', 'none').entry], hooks: [hook('PostToolUse', () => ({ decision: 'block', reason: messy }))] })
    const result = await executor.execute({ id: 'd', name: 'Deploy', input: {} }, { sessionId: 's' })
    expect([result.status, result.modelContent]).toEqual(['failed', `${`PostToolUse hook blocked this result: ${words.join(' ')}`.slice(0, 497)}...`])
  })

  it.each<[string, PermissionAnswer | undefined, HookOutput | undefined, string]>([
    ['a blank deny message', { decision: 'deny', decidedBy: 'client', message: ' \n\t ' }, undefined, 'Permission denied for Deploy'],
    ['a blank PreToolUse reason', undefined, { permissionDecision: 'deny', reason: '\n\n' }, 'Blocked by PreToolUse hook'],
  ])('A4 %s counts as none: the default text reaches the model', async (_title, answer, hookOutput, content) => {
    const hooks = hookOutput === undefined ? [] : [preToolUse(hookOutput)]
    const { executor, broker } = build({ tools: [noteTool('Deploy', 'network').entry], hooks })
    const sink = answeringSink(broker, answer ?? CLIENT_ALLOW)
    const result = await executor.execute({ id: 'd', name: 'Deploy', input: {} }, { sessionId: 's', broker, emit: sink.emit })
    expect([result.status, result.modelContent]).toEqual(['denied', content])
  })
})

describe('A5 ExitPlanMode denied', () => {
  function planSchedule(answer: PermissionAnswer): Promise<{ outcome: Awaited<ReturnType<Executor['executeSchedule']>>; read: number }> {
    const exit = exitPlanModeTool()
    const { executor, broker } = build({ tools: [exit.entry, readTool] })
    const sink = answeringSink(broker, answer)
    const calls = [
      { id: 'exit', name: 'ExitPlanMode', input: { note: 'the plan' } },
      { id: 'r1', name: 'Read', input: { file_path: 'a' } },
    ]
    return executor.executeSchedule(calls, { sessionId: 's', broker, emit: sink.emit }).then((outcome) => ({ outcome, read: exit.inputs.length }))
  }

  it('A5 without feedback stops the turn and later groups get the R9 text', async () => {
    const { outcome } = await planSchedule({ decision: 'deny', decidedBy: 'client' })
    const [exit, read] = outcome.results
    expect(outcome.groups).toEqual([['exit'], ['r1']])
    expect(exit?.modelContent).toBe('Permission denied for ExitPlanMode')
    expect(exit?.control).toEqual({ turnControl: { reason: 'plan_exit_denied', stopTurnAfterResult: true } })
    expect([read?.status, read?.modelContent]).toEqual(['cancelled', TURN_STOP_TEXT])
    expect(outcome.status).toBe('stopped')
  })

  it('A5 with feedback goes on: the model is told the plan was not approved and the feedback is kept', async () => {
    const { outcome } = await planSchedule({ decision: 'deny', decidedBy: 'client', message: 'Split step 2 in two.' })
    const [exit, read] = outcome.results
    expect(exit?.modelContent).toBe('The plan was not approved by the user.')
    expect(exit?.control).toBeUndefined()
    expect(exit?.error?.context?.['userFeedback']).toBe('Split step 2 in two.')
    expect([read?.status, read?.modelContent]).toEqual(['succeeded', 'contents of a'])
    expect(outcome.status).toBe('completed')
  })

  it('A5 treats a headless denial as no feedback: the broker reason is not the user speaking', async () => {
    const exit = exitPlanModeTool()
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([exit.entry]) })
    const result = await executor.execute({ id: 'exit', name: 'ExitPlanMode', input: {} }, { sessionId: 's' })
    expect(result.modelContent).toBe('Permission denied for ExitPlanMode')
    expect(result.control?.turnControl?.reason).toBe('plan_exit_denied')
    expect(result.error?.context).toBeUndefined()
  })
})

describe('a permission read while the database is away', () => {
  /** A mode service whose first `failures` evaluations fail as an unreachable PostgreSQL does. */
  function flakyPermissions(failures: number): { permissions: PermissionService; asked: () => number } {
    const base = createModePermissionService()
    let asked = 0
    return {
      asked: () => asked,
      permissions: {
        evaluate: (query) => {
          asked++
          if (asked <= failures) return Promise.reject(new ToolexecError('API_ERR_STORAGE_UNAVAILABLE', ['terminating connection due to administrator command']))
          return base.evaluate(query)
        },
      },
    }
  }

  it('waits for the database and runs the call once it answers, not failed for the outage', async () => {
    const note = noteTool('Note', 'none')
    const flaky = flakyPermissions(3)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([note.entry]), permissions: flaky.permissions })
    const result = await executor.execute({ id: 'n1', name: 'Note', input: { note: 'x' } }, { sessionId: 's', workspace })
    expect({ status: result.status, asked: flaky.asked(), inputs: note.inputs }).toEqual({ status: 'succeeded', asked: 4, inputs: [{ note: 'x' }] })
  })

  it('stops waiting when the call is cancelled, and the call does not run', async () => {
    const note = noteTool('Note', 'none')
    const flaky = flakyPermissions(Number.POSITIVE_INFINITY)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([note.entry]), permissions: flaky.permissions })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    const result = await executor.execute({ id: 'n2', name: 'Note', input: {} }, { sessionId: 's', workspace, signal: controller.signal })
    expect(result.status).not.toBe('succeeded')
    expect(note.inputs).toEqual([])
    expect(flaky.asked()).toBeGreaterThan(1)
  })

  it('fails the call at once on any other error of the read', async () => {
    const note = noteTool('Note', 'none')
    let asked = 0
    const permissions: PermissionService = { evaluate: () => (asked++, Promise.reject(new Error('rules are broken'))) }
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([note.entry]), permissions })
    const result = await executor.execute({ id: 'n3', name: 'Note', input: {} }, { sessionId: 's', workspace })
    expect({ status: result.status, asked }).toEqual({ status: 'failed', asked: 1 })
  })
})
