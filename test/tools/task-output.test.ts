import { spawnSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { createTaskOutputTool } from '../../src/tools/task-output/index.js'
import type { TaskOutputReport } from '../../src/tools/task-output/task-report.js'
import { readFile } from 'node:fs/promises'
import { openShellHarness, type ShellHarness } from '../support/shell-harness.js'
import { textOf } from '../support/model-text.js'

let h: ShellHarness

beforeEach(async () => {
  h = await openShellHarness('taskoutput', [createTaskOutputTool()])
})

afterEach(() => h.close(['s1', 's2']))

const call = (name: string, input: Record<string, unknown>, sessionId = 's1'): Promise<ToolExecutionResult> => h.call(name, input, { sessionId })

async function startInBackground(command: string, sessionId = 's1'): Promise<string> {
  const result = await call('Bash', { command, run_in_background: true, description: 'a test command' }, sessionId)
  const match = /^Command running in background with ID: (bash_[0-9a-f]{8})$/.exec(textOf(result.modelContent))
  if (match?.[1] === undefined) throw new Error(`no task id in ${textOf(result.modelContent)}`)
  return match[1]
}

function reportOf(result: ToolExecutionResult): TaskOutputReport {
  return result.output as TaskOutputReport
}

describe('Bash run_in_background', () => {
  it('R1 returns a task id at once and lists the task in the executor registry for its session', async () => {
    const started = performance.now()
    const result = await call('Bash', { command: 'sleep 2', run_in_background: true, description: 'wait a bit' })
    expect(performance.now() - started).toBeLessThan(1000)
    expect(textOf(result.modelContent)).toMatch(/^Command running in background with ID: bash_[0-9a-f]{8}$/)
    const taskId = textOf(result.modelContent).split(': ')[1]
    expect(result.display).toEqual({ kind: 'background_task', taskId, command: 'sleep 2', status: 'running', confined: true })
    expect(h.backgroundTasks.list('s1')).toEqual([{ id: taskId, sessionId: 's1', description: 'wait a bit', external: false }])
    expect(h.backgroundTasks.list('s2')).toEqual([])
  })

  it('R40 keeps a background command serial with scope system, even a read-only one', async () => {
    await call('Bash', { command: 'ls', run_in_background: true })
    const started = h.events.find((event) => event.type === 'ToolCallStarted')
    expect(started?.type === 'ToolCallStarted' ? started.flags : undefined).toMatchObject({ readOnly: false, sideEffectScope: 'system' })
  })
})

describe('TaskOutput', () => {
  it('R1 waits for the task by default and returns its status, exit code and whole output', async () => {
    const taskId = await startInBackground('echo started; sleep 0.4; echo finished >&2')
    const result = await call('TaskOutput', { task_id: taskId })
    expect(result.modelContent).toBe(
      [
        '<retrieval_status>success</retrieval_status>',
        `<task_id>${taskId}</task_id>`,
        '<task_type>local_bash</task_type>',
        '<status>completed</status>',
        '<exit_code>0</exit_code>',
        '<output>',
        'started\nfinished',
        '</output>',
      ].join('\n'),
    )
    expect(result.display).toEqual({ kind: 'background_task_output', taskId, status: 'completed', output: 'started\nfinished\n', truncated: false })
    expect(h.backgroundTasks.list('s1')).toEqual([])
    const again = await call('TaskOutput', { task_id: taskId, block: false })
    expect(reportOf(again)).toMatchObject({ status: 'completed', retrievalStatus: 'success', output: 'started\nfinished\n' })
  })

  it('R1 answers at once with block: false, with the output so far', async () => {
    const taskId = await startInBackground('echo early; sleep 5')
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = performance.now()
    const result = await call('TaskOutput', { task_id: taskId, block: false })
    expect(performance.now() - started).toBeLessThan(500)
    expect(reportOf(result)).toMatchObject({ status: 'running', retrievalStatus: 'not_ready', exitCode: null, output: 'early\n' })
  })

  it('R1 stops waiting after `timeout` ms and says so', async () => {
    const taskId = await startInBackground('sleep 5')
    const started = performance.now()
    const result = await call('TaskOutput', { task_id: taskId, timeout: 200 })
    const elapsed = performance.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(190)
    expect(elapsed).toBeLessThan(1000)
    expect(textOf(result.modelContent)).toContain('<retrieval_status>timeout</retrieval_status>')
    expect(reportOf(result).status).toBe('running')
  })

  it('R1 reports a failing command as failed with its exit code', async () => {
    const taskId = await startInBackground('echo oops >&2; exit 2')
    const report = reportOf(await call('TaskOutput', { task_id: taskId }))
    expect(report).toMatchObject({ status: 'failed', exitCode: 2, output: 'oops\n' })
  })

  it.each([
    ['an unknown id', 'bash_00000000', 's1'],
    ["another session's task", undefined, 's2'],
  ])('R26 refuses %s with a tool_use_error', async (_case, id, sessionId) => {
    const taskId = id ?? (await startInBackground('sleep 1'))
    const result = await call('TaskOutput', { task_id: taskId }, sessionId)
    expect(result).toMatchObject({ success: false, modelContent: `<tool_use_error>No task found with ID: ${taskId}</tool_use_error>` })
  })

  it('R32 gives the head and tail of a large background output and the artifact that holds all of it', async () => {
    const taskId = await startInBackground('seq 1 300000')
    const result = await call('TaskOutput', { task_id: taskId })
    const report = reportOf(result)
    const expected = spawnSync('seq', ['1', '300000'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout
    expect(report).toMatchObject({ status: 'completed', truncated: true, totalBytes: Buffer.byteLength(expected) })
    expect(await readFile(report.persistedPath ?? '', 'utf8')).toBe(expected)
    const text = textOf(result.modelContent)
    expect(text).toContain(`Full output saved to: ${report.persistedPath}`)
    expect(text).toContain('\n299999\n300000\n</persisted-output>\n</output>')
    expect(result.display).toMatchObject({ kind: 'background_task_output', truncated: true })
  })

  it('R1 reads a task adopted with trackExternalBackgroundTask', async () => {
    let finish: (value: string) => void = () => undefined
    const done = new Promise<string>((resolve) => {
      finish = resolve
    })
    h.executor.trackExternalBackgroundTask({ id: 'resumed-1', sessionId: 's1', description: 'a resumed run', done, cancel: () => finish('cancelled') })
    setTimeout(() => finish('all done'), 100)
    const report = reportOf(await call('TaskOutput', { task_id: 'resumed-1' }))
    expect(report).toMatchObject({ taskType: 'external', status: 'completed', retrievalStatus: 'success', output: 'all done' })
  })

  it('R3 is read-only with scope none and has no executor timeout', async () => {
    const taskId = await startInBackground('true')
    await call('TaskOutput', { task_id: taskId })
    const started = h.events.filter((event) => event.type === 'ToolCallStarted').at(-1)
    expect(started?.type === 'ToolCallStarted' ? started.flags : undefined).toMatchObject({ readOnly: true, concurrentSafe: true, sideEffectScope: 'none' })
    expect(resolveTimeoutMs(createTaskOutputTool(), { task_id: taskId, timeout: 5 }, 300_000)).toBeUndefined()
  })
})
