import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hasCode } from '../../src/contracts/errors.js'
import type { ToolCall } from '../../src/contracts/tool-call.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { createBarrier, deferred, eventsOfType, makeTool, sleep, type ToolExtras } from '../support/schedule-tools.js'
import { collectEvents } from '../support/tools.js'
import { tempDir } from '../support/temp-dirs.js'
import { createTestExecutor } from '../support/executor.js'
import { textOf } from '../support/model-text.js'

const BYPASS = { permissionMode: 'bypassPermissions' } as const
const SERIAL = { readOnly: false, concurrentSafe: false, permission: { sideEffectScope: 'workspace' } } as const

describe('executor surface', () => {
  it('R1 execute runs one call through the pipeline', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([makeTool('Read', (input) => Promise.resolve(`read ${String(input.p)}`))]) })
    const result = await executor.execute({ id: 'a', name: 'Read', input: { p: 'x' } }, { sessionId: 's' })
    expect([result.callId, result.status, result.modelContent]).toEqual(['a', 'succeeded', 'read x'])
  })

  it('R1 executeBatch runs a set together, even calls that a schedule would run alone', async () => {
    const barrier = createBarrier(3)
    const meet = makeTool('Meet', async (_input, ctx) => barrier.arrive().then(() => `met ${ctx.callId}`), SERIAL)
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([meet]) })
    const calls: ToolCall[] = ['a', 'b', 'c'].map((id) => ({ id, name: 'Meet', input: {} }))
    expect(executor.plan(calls)).toEqual([['a'], ['b'], ['c']])
    const results = await executor.executeBatch(calls, { sessionId: 's', ...BYPASS })
    expect(results.map((r) => r.modelContent)).toEqual(['met a', 'met b', 'met c'])
  })

  it('R1 executeSchedule runs serial calls one group after another', async () => {
    const timeline: string[] = []
    const step = makeTool(
      'Step',
      async (_input, ctx) => {
        timeline.push(`start:${ctx.callId}`)
        await sleep(10)
        timeline.push(`end:${ctx.callId}`)
        return 'ok'
      },
      SERIAL,
    )
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([step]) })
    const calls: ToolCall[] = ['a', 'b'].map((id) => ({ id, name: 'Step', input: {} }))
    const outcome = await executor.executeSchedule(calls, { sessionId: 's', ...BYPASS })
    expect(outcome.groups).toEqual([['a'], ['b']])
    expect(timeline).toEqual(['start:a', 'end:a', 'start:b', 'end:b'])
  })

  it('R1 flagsOf is undefined for a tool the registry does not know', () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([]) })
    expect(executor.flagsOf({ id: 'a', name: 'Nope', input: {} })).toBeUndefined()
  })

  it('R2 one executor serves concurrent turns, each with its own sink and abort signal', async () => {
    const gate = deferred()
    const wait = makeTool('Wait', async (_input, ctx) => {
      await gate.promise
      return `done in ${ctx.sessionId}`
    })
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([wait]) })
    const first = collectEvents()
    const second = collectEvents()
    const controller = new AbortController()
    const call: ToolCall = { id: 'a', name: 'Wait', input: {} }
    const running = [executor.executeSchedule([call], { sessionId: 's1', emit: first.emit, signal: controller.signal }), executor.executeSchedule([call], { sessionId: 's2', emit: second.emit })]
    await sleep(5)
    controller.abort()
    gate.resolve()
    const [one, two] = await Promise.all(running)
    expect([one?.status, one?.results[0]?.status]).toEqual(['cancelled', 'cancelled'])
    expect([two?.status, two?.results[0]?.modelContent]).toEqual(['completed', 'done in s2'])
    expect(new Set(first.events.map((e) => e.sessionId))).toEqual(new Set(['s1']))
    expect(new Set(second.events.map((e) => e.sessionId))).toEqual(new Set(['s2']))
  })

  it('R6 executeSchedule follows declared dependencies', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([makeTool('Read', () => Promise.resolve('r'))]) })
    const { events, emit } = collectEvents()
    const calls: ToolCall[] = [
      { id: 'a', name: 'Read', input: {}, dependsOn: ['c'] },
      { id: 'b', name: 'Read', input: {} },
      { id: 'c', name: 'Read', input: {} },
    ]
    const outcome = await executor.executeSchedule(calls, { sessionId: 's', emit })
    expect(outcome.groups).toEqual([['b', 'c'], ['a']])
    expect(outcome.results.map((r) => r.callId)).toEqual(['a', 'b', 'c'])
    expect(eventsOfType(events, 'ToolCallStarted').map((e) => e.callId)).toEqual(['b', 'c', 'a'])
  })

  it('R6 a dependency cycle rejects the schedule with a coded error naming the calls', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([makeTool('Read', () => Promise.resolve('r'))]) })
    const calls: ToolCall[] = [
      { id: 'a', name: 'Read', input: {}, dependsOn: ['b'] },
      { id: 'b', name: 'Read', input: {}, dependsOn: ['a'] },
    ]
    const error: unknown = await executor.executeSchedule(calls, { sessionId: 's' }).then(
      () => undefined,
      (reason: unknown) => reason,
    )
    expect(hasCode(error, 'EXEC_ERR_DEPENDENCY_CYCLE')).toBe(true)
    expect((error as Error).message).toBe('Dependency cycle among calls: a -> b -> a')
  })
})

describe('R31-R36 large results through an artifact store', () => {
  let dataDir = ''
  beforeEach(async () => {
    dataDir = await tempDir('call-handler')
  })
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true })
  })

  const budget = { maxModelBytes: 4000, maxInlineBytes: 4000, strategy: 'artifact', previewDirection: 'head' } as const
  // Multi-byte characters make bytes and characters differ.
  const bigOutput = Array.from({ length: 400 }, (_, i) => `line ${i} grüße ✓`).join('\n')
  const bigBytes = Buffer.byteLength(bigOutput)
  const grep = (extra: ToolExtras = {}): ToolEntry => makeTool('Grep', (input) => Promise.resolve(String(input.text)), { resultBudget: budget, ...extra })

  function expectedEnvelope(path: string): string {
    const first = Array.from(bigOutput).slice(0, 2000).join('')
    const newline = first.lastIndexOf('\n')
    const preview = newline > 1000 ? first.slice(0, newline) : first
    return ['<persisted-output>', `Output too large (${Math.round(bigBytes / 1000)} KB). Full output saved to: ${path}`, '', 'Preview (first 2 KB):', preview, '...', '</persisted-output>'].join('\n')
  }

  it('R32 R33 R36 saves the full output as an artifact and gives the model the envelope', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([grep()]), artifacts: new FsArtifactStore({ dataDir }) })
    const { events, emit } = collectEvents()
    const result = await executor.execute({ id: 'call#1', name: 'Grep', input: { text: bigOutput } }, { sessionId: 'sess:1', emit })

    const serialization = result.serialization
    const path = serialization.persistedPath ?? ''
    expect(path.startsWith(join(dataDir, 'cli', 'artifacts', 'sess_1', 'call_1-tool-result-'))).toBe(true)
    expect(path.endsWith('.txt')).toBe(true)
    expect((await readFile(path)).equals(Buffer.from(bigOutput, 'utf8'))).toBe(true)
    expect(result.modelContent).toBe(expectedEnvelope(path))
    expect(serialization.artifactUri).toMatch(/^toolexec-artifact:\/\/sess%3A1\/tool-result-[0-9a-f-]{36}$/)
    const [event] = eventsOfType(events, 'ToolCallResult')
    expect(event?.result.serialization).toEqual({
      truncated: true,
      originalBytes: bigBytes,
      actualBytes: Buffer.byteLength(expectedEnvelope(path)),
      strategy: 'artifact',
      persistedPath: path,
      artifactUri: serialization.artifactUri,
    })
    expect(result.success).toBe(true)
  })

  it("R32 a tool's formatPersistedModelContent replaces the envelope", async () => {
    const tool = grep({ formatPersistedModelContent: (args) => `saved ${args.originalBytes} bytes at ${args.persistedPath}` })
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([tool]), artifacts: new FsArtifactStore({ dataDir }) })
    const result = await executor.execute({ id: 'c', name: 'Grep', input: { text: bigOutput } }, { sessionId: 's' })
    expect(result.modelContent).toBe(`saved ${bigBytes} bytes at ${result.serialization.persistedPath}`)
  })

  it('R32 a failed artifact write truncates with the notice, says why nothing was saved, and the call still succeeds', async () => {
    const notADir = join(dataDir, 'file')
    await writeFile(notADir, 'x')
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([grep()]), artifacts: new FsArtifactStore({ dataDir: notADir }) })
    const result = await executor.execute({ id: 'c', name: 'Grep', input: { text: bigOutput } }, { sessionId: 's' })
    const notice = '\n\n[Full output not saved: ENOTDIR'
    const truncation = `]\n\n[Tool output truncated by resultBudget: originalBytes=${bigBytes}, maxModelBytes=4000, strategy=artifact]`
    const content = textOf(result.modelContent)
    expect(content).toContain(notice)
    expect(content.endsWith(truncation)).toBe(true)
    const cut = content.slice(0, content.indexOf(notice))
    expect(result.success).toBe(true)
    expect(bigOutput.startsWith(cut)).toBe(true)
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(4000)
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'truncate', originalBytes: bigBytes })
  })

  it.each<[string, string, string]>([
    ['small output goes inline', 'short', 'short'],
    ['empty output is named', '', '(Grep completed with no output)'],
  ])('R31 %s', async (_label, text, modelContent) => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([grep()]), artifacts: new FsArtifactStore({ dataDir }) })
    const result = await executor.execute({ id: 'c', name: 'Grep', input: { text } }, { sessionId: 's' })
    expect(result.modelContent).toBe(modelContent)
    expect(result.serialization.strategy).toBe('inline')
  })
})
