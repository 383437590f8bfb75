import { describe, expect, it } from 'vitest'
import type { PermissionAnswer, PermissionMode } from '../../src/contracts/ports.js'
import type { ToolCall } from '../../src/contracts/tool-call.js'
import { TURN_STOP_TEXT } from '../../src/executor/batch-runner.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { ALREADY_IN_PLAN_MODE_TEXT, ENTERED_PLAN_MODE_TEXT, createEnterPlanModeTool } from '../../src/tools/enter-plan-mode/index.js'
import { approvedPlanText, createExitPlanModeTool, NOT_IN_PLAN_MODE_TEXT } from '../../src/tools/exit-plan-mode/index.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import type { SessionControl } from '../../src/tools/services.js'
import { CLIENT_ALLOW, answeringSink, ofType, tempDir } from '../support/permission-tools.js'
import { readTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

/** The session side of the runtime, reduced to its permission mode. */
class SessionModes implements SessionControl {
  readonly #modes = new Map<string, PermissionMode>()
  readonly changes: [string, PermissionMode][] = []

  getPermissionMode(sessionId: string): Promise<PermissionMode> {
    return Promise.resolve(this.#modes.get(sessionId) ?? 'default')
  }

  setPermissionMode(sessionId: string, mode: PermissionMode): Promise<void> {
    this.changes.push([sessionId, mode])
    this.#modes.set(sessionId, mode)
    return Promise.resolve()
  }
}

const PLAN = '1. Read the code\n2. Change `x` to `y`\n3. Run the tests'

async function harness(answer: PermissionAnswer | undefined = CLIENT_ALLOW, withSession = true) {
  const session = new SessionModes()
  const broker = new InMemoryPermissionBroker()
  const sink = answeringSink(broker, answer)
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createEnterPlanModeTool(), createExitPlanModeTool(), readTool]),
    artifacts: new FsArtifactStore({ dataDir: await tempDir('plan') }),
    broker,
    services: withSession ? { session } : {},
  })
  /** Each schedule is a turn that starts in the session's current mode, as the runtime would. */
  const turn = async (calls: ToolCall[], sessionId = 's1', mode?: PermissionMode) =>
    executor.executeSchedule(calls, { sessionId, emit: sink.emit, permissionMode: mode ?? (await session.getPermissionMode(sessionId)) })
  return { executor, session, sink, turn }
}

const enter = (id = 'enter'): ToolCall => ({ id, name: 'EnterPlanMode', input: {} })
const exit = (id = 'exit', plan = PLAN): ToolCall => ({ id, name: 'ExitPlanMode', input: { plan } })
const read = (id = 'read'): ToolCall => ({ id, name: 'Read', input: { file_path: 'f' } })

describe('EnterPlanMode and ExitPlanMode', () => {
  it.each<PermissionMode>(['default', 'acceptEdits'])('R12 enters plan mode from %s and an approved exit restores it, with the plan as preview', async (startMode) => {
    const { session, sink, turn } = await harness()
    await session.setPermissionMode('s1', startMode)
    const entered = await turn([enter()])
    expect(entered.results[0]?.modelContent).toBe(ENTERED_PLAN_MODE_TEXT)
    expect(entered.results[0]?.output).toEqual({ previousMode: startMode, alreadyInPlanMode: false })
    expect(await session.getPermissionMode('s1')).toBe('plan')
    const exited = await turn([exit()])
    expect(exited.results[0]?.modelContent).toBe(approvedPlanText(startMode))
    expect(exited.results[0]?.permission).toBe('approved')
    expect(await session.getPermissionMode('s1')).toBe(startMode)
    const asked = ofType(sink.events, 'PermissionRequested').filter((event) => event.toolName === 'ExitPlanMode')
    expect(asked.map((event) => event.preview)).toEqual([{ title: 'Plan', text: PLAN }])
  })

  it('R14 asks for the plan even when permissions are bypassed (alwaysAsk)', async () => {
    const { session, sink, turn } = await harness()
    await session.setPermissionMode('s1', 'plan')
    const outcome = await turn([exit()], 's1', 'bypassPermissions')
    expect(outcome.results[0]?.status).toBe('succeeded')
    expect(ofType(sink.events, 'PermissionRequested').map((event) => event.toolName)).toEqual(['ExitPlanMode'])
  })

  it('R12 entering twice keeps the mode to return to', async () => {
    const { session, turn } = await harness()
    await session.setPermissionMode('s1', 'acceptEdits')
    await turn([enter('e1')])
    const again = await turn([enter('e2')])
    expect(again.results[0]?.modelContent).toBe(ALREADY_IN_PLAN_MODE_TEXT)
    await turn([exit()])
    expect(await session.getPermissionMode('s1')).toBe('acceptEdits')
  })

  it('R12 restores default when plan mode was entered some other way, and remembers per session', async () => {
    const { session, turn } = await harness()
    await session.setPermissionMode('s1', 'acceptEdits')
    await session.setPermissionMode('s2', 'plan')
    await turn([enter()], 's1')
    await turn([exit()], 's2')
    expect(await session.getPermissionMode('s2')).toBe('default')
    await turn([exit()], 's1')
    expect(await session.getPermissionMode('s1')).toBe('acceptEdits')
  })

  it('R26 exiting outside plan mode is a tool_use_error that changes nothing', async () => {
    const { session, turn } = await harness()
    await session.setPermissionMode('s1', 'acceptEdits')
    const outcome = await turn([exit()])
    expect(outcome.results[0]?.modelContent).toBe(`<tool_use_error>${NOT_IN_PLAN_MODE_TEXT}</tool_use_error>`)
    expect(await session.getPermissionMode('s1')).toBe('acceptEdits')
  })

  it('R30 a denial with feedback does not stop the turn: the model reads A5 text, the feedback goes back', async () => {
    const { session, turn } = await harness({ decision: 'deny', decidedBy: 'client', message: 'Also update the docs' })
    await session.setPermissionMode('s1', 'plan')
    const outcome = await turn([exit(), read()])
    const [denied, later] = outcome.results
    expect(denied).toMatchObject({ status: 'denied', modelContent: 'The plan was not approved by the user.' })
    expect(denied?.control?.turnControl).toBeUndefined()
    expect(denied?.error?.context).toEqual({ userFeedback: 'Also update the docs' })
    expect(later?.status).toBe('succeeded')
    expect(outcome.status).toBe('completed')
    expect(await session.getPermissionMode('s1')).toBe('plan')
  })

  it('R9 a denial without feedback stops the turn and later groups get the turn-stop text', async () => {
    const { session, turn } = await harness({ decision: 'deny', decidedBy: 'client' })
    await session.setPermissionMode('s1', 'plan')
    const outcome = await turn([exit(), read()])
    const [denied, later] = outcome.results
    expect(denied).toMatchObject({ status: 'denied', modelContent: 'Permission denied for ExitPlanMode' })
    expect(denied?.control?.turnControl).toEqual({ reason: 'plan_exit_denied', stopTurnAfterResult: true })
    expect(later).toMatchObject({ status: 'cancelled', modelContent: TURN_STOP_TEXT })
    expect(outcome.status).toBe('stopped')
    expect(await session.getPermissionMode('s1')).toBe('plan')
  })

  it('R25 fails with a clear message when the host gives no session service', async () => {
    const { turn } = await harness(CLIENT_ALLOW, false)
    const outcome = await turn([enter()], 's1', 'bypassPermissions')
    expect(outcome.results[0]?.modelContent).toBe('EnterPlanMode needs the session service (services.session), and none is configured')
  })

  it.each([
    ['a missing plan', {}],
    ['an empty plan', { plan: '' }],
  ])('R26 rejects %s through schema validation', async (_case, input) => {
    const { turn } = await harness()
    const outcome = await turn([{ id: 'x', name: 'ExitPlanMode', input }], 's1', 'plan')
    expect(outcome.results[0]?.error?.stage).toBe('validation')
  })

  it('R7 both run alone with scope session, F/F/F, 30000 ms and a 100000-byte truncate budget', async () => {
    const { executor } = await harness()
    expect(executor.plan([read('a'), enter('b'), exit('c'), read('d')])).toEqual([['a'], ['b'], ['c'], ['d']])
    for (const entry of [createEnterPlanModeTool(), createExitPlanModeTool()]) {
      expect([entry.readOnly, entry.destructive, entry.concurrentSafe, entry.permission.sideEffectScope]).toEqual([false, false, false, 'session'])
      expect(entry.resultBudget).toEqual({ maxModelBytes: 100_000, maxInlineBytes: 100_000, strategy: 'truncate', previewDirection: 'head' })
      expect(resolveTimeoutMs(entry, { plan: 'p', timeout: 5 }, 300_000)).toBe(30_000)
    }
  })
})
