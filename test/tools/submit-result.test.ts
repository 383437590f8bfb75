import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../../src/contracts/tool-call.js'
import { TURN_STOP_TEXT } from '../../src/executor/batch-runner.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { createSubmitResultTool } from '../../src/tools/submit-result/index.js'
import { tempDir } from '../support/permission-tools.js'
import { readTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

async function harness() {
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createSubmitResultTool(), readTool]),
    artifacts: new FsArtifactStore({ dataDir: await tempDir('submit') }),
  })
  const turn = (calls: ToolCall[]) => executor.executeSchedule(calls, { sessionId: 's1', permissionMode: 'bypassPermissions' })
  return { executor, turn }
}

const submit = (result: unknown, id = 'submit'): ToolCall => ({ id, name: 'submit_result', input: { result } })
const read = (id: string): ToolCall => ({ id, name: 'Read', input: { file_path: id } })

describe('submit_result', () => {
  it('R9 stops the turn on success: later groups get the turn-stop text, earlier ones ran', async () => {
    const { turn } = await harness()
    const outcome = await turn([read('before'), submit('All done.'), read('after1'), read('after2')])
    expect(outcome.groups).toEqual([['before'], ['submit'], ['after1', 'after2']])
    const [before, submitted, after1, after2] = outcome.results
    expect(before?.status).toBe('succeeded')
    expect(submitted).toMatchObject({ status: 'succeeded', modelContent: 'All done.', output: { result: 'All done.' } })
    expect(submitted?.control?.turnControl).toEqual({ reason: 'subagent_terminal', stopTurnAfterResult: true })
    for (const later of [after1, after2]) expect(later).toMatchObject({ status: 'cancelled', modelContent: TURN_STOP_TEXT })
    expect(outcome.status).toBe('stopped')
  })

  it.each([
    ['an object', { files: ['a.ts'], ok: true }, '{\n  "files": [\n    "a.ts"\n  ],\n  "ok": true\n}'],
    ['a number', 42, '42'],
    ['an empty text', '', '(submit_result completed with no output)'],
  ])('R31 gives the model %s as text and keeps the value in the output', async (_case, value, text) => {
    const { turn } = await harness()
    const outcome = await turn([submit(value)])
    expect(outcome.results[0]).toMatchObject({ modelContent: text, output: { result: value }, isError: false })
  })

  it('R28 keeps a submitted {isError: true} a success in history', async () => {
    const { turn } = await harness()
    const outcome = await turn([submit({ isError: true })])
    expect(outcome.results[0]?.isError).toBe(false)
  })

  it('R32 truncates a result over 16000 bytes at the head with the notice', async () => {
    const { turn } = await harness()
    const outcome = await turn([submit('ü'.repeat(10_000))])
    const result = outcome.results[0]
    expect(result?.serialization).toMatchObject({ truncated: true, strategy: 'truncate', originalBytes: 20_000 })
    const content = result?.modelContent as string
    expect(content).toMatch(/^ü+\n\n\[Tool output truncated by resultBudget: originalBytes=20000, maxModelBytes=16000, strategy=truncate\]$/)
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(16_000)
  })

  it('R10 a rejected submit_result does not stop the turn', async () => {
    const { turn } = await harness()
    const outcome = await turn([{ id: 'bad', name: 'submit_result', input: {} }, read('after')])
    expect(outcome.results[0]?.error?.stage).toBe('validation')
    expect(outcome.results[0]?.modelContent).toMatch(/The required parameter `result` is missing/)
    expect(outcome.results[1]?.status).toBe('succeeded')
    expect(outcome.status).toBe('completed')
  })

  it('R20 has no time limit and R7 runs alone with scope session', async () => {
    const entry = createSubmitResultTool()
    expect(resolveTimeoutMs(entry, { result: 'x', timeout: 5 }, 300_000)).toBeUndefined()
    expect([entry.readOnly, entry.destructive, entry.concurrentSafe, entry.permission.sideEffectScope]).toEqual([false, false, false, 'session'])
    const { executor } = await harness()
    expect(executor.plan([submit('a', 'a'), submit('b', 'b')])).toEqual([['a'], ['b']])
  })
})
