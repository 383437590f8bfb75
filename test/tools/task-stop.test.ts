import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { createTaskOutputTool } from '../../src/tools/task-output/index.js'
import type { TaskOutputReport } from '../../src/tools/task-output/task-report.js'
import { createTaskStopTool } from '../../src/tools/task-stop/index.js'
import { eventually, groupMembers, hostPidSoon, isRunning, killAll } from '../support/processes.js'
import { openShellHarness, type ShellHarness } from '../support/shell-harness.js'
import { textOf } from '../support/model-text.js'

let h: ShellHarness

beforeEach(async () => {
  h = await openShellHarness('taskstop', [createTaskOutputTool(), createTaskStopTool()])
})

afterEach(() => h.close(['s1', 's2']))

const call = (name: string, input: Record<string, unknown>, sessionId = 's1'): Promise<ToolExecutionResult> => h.call(name, input, { sessionId })

async function startInBackground(command: string): Promise<string> {
  const result = await call('Bash', { command, run_in_background: true })
  return textOf(result.modelContent).replace('Command running in background with ID: ', '')
}

describe('TaskStop', () => {
  it('R1 kills a background command with its whole process tree', async () => {
    const command = '(sleep 30 &) ; sleep 30'
    const taskId = await startInBackground(command)
    const task = h.shellTasks.get('s1', taskId)
    expect(await eventually(() => task?.pid !== undefined && groupMembers(task.pid).length >= 2, 2000)).toBe(true)
    const pgid = task?.pid ?? 0
    const result = await call('TaskStop', { task_id: taskId })
    expect(result).toMatchObject({ status: 'succeeded', modelContent: `Successfully stopped task: ${taskId} (${command})` })
    expect(result.display).toEqual({ kind: 'background_task', taskId, command, status: 'killed' })
    expect(await eventually(() => groupMembers(pgid).length === 0, 1500)).toBe(true)
    const report = (await call('TaskOutput', { task_id: taskId, block: false })).output as TaskOutputReport
    expect(report.status).toBe('killed')
    expect(h.backgroundTasks.list('s1')).toEqual([])
  })

  it('R1 kills what a background command started in a session of its own', async () => {
    const taskId = await startInBackground('echo "$TOOLEXEC_PROCESS_TAG" > tag; setsid sleep 300 & echo $! > escaped.pid; sleep 30')
    const pidFile = join(h.workspace, 'escaped.pid')
    expect(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 2000)).toBe(true)
    // As the command saw it: in its sandbox's pid namespace when confined.
    const tag = readFileSync(join(h.workspace, 'tag'), 'utf8').trim()
    const escaped = await hostPidSoon(Number(readFileSync(pidFile, 'utf8')), tag)
    expect(escaped).toBeGreaterThan(0)
    try {
      expect(isRunning(escaped)).toBe(true)
      await call('TaskStop', { task_id: taskId })
      expect(await eventually(() => !isRunning(escaped), 1500)).toBe(true)
    } finally {
      killAll([escaped])
    }
  })

  it('R26 refuses to stop a task that already ended', async () => {
    const taskId = await startInBackground('echo quick')
    await call('TaskOutput', { task_id: taskId })
    const result = await call('TaskStop', { task_id: taskId })
    expect(result.modelContent).toBe(`<tool_use_error>Task ${taskId} is not running (status: completed)</tool_use_error>`)
  })

  it.each([
    ['bash_00000000', 's1'],
    ['', 's2'],
  ])('R26 refuses an id %j this session does not have', async (id, sessionId) => {
    const taskId = id === '' ? await startInBackground('sleep 5') : id
    const result = await call('TaskStop', { task_id: taskId }, sessionId)
    expect(result.modelContent).toBe(`<tool_use_error>No task found with ID: ${taskId}</tool_use_error>`)
  })

  it('R1 cancels a task adopted with trackExternalBackgroundTask', async () => {
    let reason: string | undefined
    let finish: () => void = () => undefined
    const done = new Promise<void>((resolve) => {
      finish = resolve
    })
    h.executor.trackExternalBackgroundTask({
      id: 'resumed-1',
      sessionId: 's1',
      description: 'a resumed run',
      done,
      cancel: (why) => {
        reason = why
        finish()
      },
    })
    const result = await call('TaskStop', { task_id: 'resumed-1' })
    expect(result.modelContent).toBe('Successfully stopped task: resumed-1 (a resumed run)')
    expect(reason).toBe('Stopped by TaskStop')
  })

  it('R1 ends every background command of a session when the session is cancelled', async () => {
    const first = await startInBackground('sleep 30')
    const second = await startInBackground('sleep 30')
    const tasks = [first, second].map((id) => h.shellTasks.get('s1', id))
    expect(await eventually(() => tasks.every((task) => task?.pid !== undefined), 2000)).toBe(true)
    const groups = tasks.map((task) => task?.pid ?? 0)
    expect(h.backgroundTasks.cancelSession('s1')).toBe(2)
    expect(await eventually(() => groups.every((pgid) => groupMembers(pgid).length === 0), 1500)).toBe(true)
  })

  it('R3 is serial-safe with scope session and a 10000 ms timeout', async () => {
    await call('TaskStop', { task_id: 'bash_00000000' })
    const started = h.events.find((event) => event.type === 'ToolCallStarted')
    expect(started?.type === 'ToolCallStarted' ? started.flags : undefined).toMatchObject({
      readOnly: false,
      destructive: false,
      concurrentSafe: true,
      sideEffectScope: 'session',
    })
    expect(resolveTimeoutMs(createTaskStopTool(), { task_id: 'x' }, 300_000)).toBe(10_000)
  })
})
