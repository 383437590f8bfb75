import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { formatBytesBinary } from '../../src/output/bytes.js'
import { resolveTimeoutMs } from '../../src/executor/timeout.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import type { BashCommandOutput } from '../../src/tools/bash/bash-output.js'
import { commandTimeoutMs, createBashTool } from '../../src/tools/bash/index.js'
import { ShellTaskStore } from '../../src/tools/bash/shell-tasks.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { eventually, groupMembers, hostPidOf, hostPidSoon, isRunning, killAll, processesTagged } from '../support/processes.js'
import { openShellHarness, type CallOptions, type ShellHarness } from '../support/shell-harness.js'
import { createTestExecutor } from '../support/executor.js'
import { textOf } from '../support/model-text.js'
import { anyOf } from '../support/matchers.js'

const GIB = 1024 * 1024 * 1024
// `seq 1 N` prints 1,088,888,898 bytes for N = 120,000,000: a little over 1 GiB.
const SEQ_OVER_ONE_GIB = 120_000_000

let h: ShellHarness
let leftovers: number[]
let escaped: number[]

beforeEach(async () => {
  h = await openShellHarness('bash')
  leftovers = []
  escaped = []
})

afterEach(async () => {
  for (const pgid of leftovers) killGroup(pgid)
  killAll(escaped)
  await h.close()
})

const runBash = (input: Record<string, unknown>, options: CallOptions = {}): Promise<ToolExecutionResult> => h.call('Bash', input, options)

function outputOf(result: ToolExecutionResult): BashCommandOutput {
  return result.output as BashCommandOutput
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL')
  } catch {
    // already gone
  }
}

/**
 * Leaves the command's process group twice, as daemons do: a process in a session of its own
 * (setsid) and one whose parent exited at once (a double fork). Their pids and the command's
 * tag are written to files in the workspace; then it sleeps.
 */
const ESCAPING_COMMAND = 'setsid sleep 300 & echo $! > escaped.pid; (setsid bash -c \'sleep 300 & echo $! > daemon.pid\' &); echo "$TOOLEXEC_PROCESS_TAG" > tag; sleep 30'

/** The escaped processes of ESCAPING_COMMAND run in `workspace`, once it has written them down. */
async function escapedFrom(workspace: string): Promise<{ tag: string; pids: number[] }> {
  const read = (name: string): Promise<string> => readFile(join(workspace, name), 'utf8')
  expect(await eventually(() => ['escaped.pid', 'daemon.pid', 'tag'].every((name) => existsSync(join(workspace, name)) && readFileSync(join(workspace, name), 'utf8').endsWith('\n')), 2000)).toBe(true)
  const tag = (await read('tag')).trim()
  // Written as the command saw them: in its sandbox's pid namespace when confined.
  const inner = [Number(await read('escaped.pid')), Number(await read('daemon.pid'))]
  expect(await eventually(() => inner.every((pid) => hostPidOf(pid, tag) !== undefined), 1000)).toBe(true)
  const pids = inner.map((pid) => hostPidOf(pid, tag) ?? 0)
  escaped.push(...pids)
  expect(pids.every((pid) => pid > 0 && isRunning(pid))).toBe(true)
  return { tag, pids }
}

/** Every escaped process is gone, and so is anything else that carries the command's tag. */
async function expectNothingLeftOf({ tag, pids }: { tag: string; pids: number[] }): Promise<void> {
  expect(await eventually(() => pids.every((pid) => !isRunning(pid)), 1500)).toBe(true)
  expect(tag).toMatch(/^\S+$/)
  // A process killed a moment ago may still be exiting (its sandbox's init, bwrap): a leak stays.
  await eventually(() => processesTagged(tag).length === 0, 1500)
  expect(processesTagged(tag)).toEqual([])
}

/** sha256 of a command's stdout, computed by `sha256sum` in its own processes (not in this one). */
function sha256Of(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${command} | sha256sum`], { stdio: ['ignore', 'pipe', 'ignore'] })
    let text = ''
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', () => resolve(text.split(' ')[0] ?? ''))
  })
}

/** Bytes `seq 1 n` prints, by arithmetic: each number's digits and a newline. */
function seqBytes(n: number): number {
  let bytes = 0
  for (let digits = 1, low = 1; low <= n; digits++, low *= 10) bytes += (Math.min(n, low * 10 - 1) - low + 1) * (digits + 1)
  return bytes
}

describe('Bash: output, exit code and budget', () => {
  it('R31 returns stdout and stderr interleaved in arrival order with the exit code', async () => {
    const result = await runBash({ command: 'echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three; exit 3' })
    expect(result).toMatchObject({ status: 'succeeded', isError: false, modelContent: 'one\ntwo\nthree\nExit code 3' })
    expect(outputOf(result)).toMatchObject({ exitCode: 3, totalBytes: 14, interrupted: false })
  })

  it('R31 gives `(Bash completed with no output)` when the command prints nothing', async () => {
    const result = await runBash({ command: 'true' })
    expect(result.modelContent).toBe('(Bash completed with no output)')
    expect(result.display).toBeUndefined()
  })

  it('R31 runs in the workspace', async () => {
    const result = await runBash({ command: 'pwd' })
    expect(result.modelContent).toBe(h.workspace)
  })

  it("R32 keeps a medium output whole in memory and lets the executor save it, with Bash's own envelope", async () => {
    const result = await runBash({ command: 'seq 1 20000' })
    const expected = spawnSync('seq', ['1', '20000'], { encoding: 'utf8' }).stdout
    expect(result.serialization).toMatchObject({ truncated: true, strategy: 'artifact' })
    const path = result.serialization.persistedPath ?? ''
    const saved = `${expected.trimEnd()}\nExit code 0`
    expect(await readFile(path, 'utf8')).toBe(saved)
    const text = textOf(result.modelContent)
    expect(text.split('\n').slice(0, 4)).toEqual(['<persisted-output>', `Output too large (${formatBytesBinary(Buffer.byteLength(saved))}). Full output saved to: ${path}`, '', 'Preview (first 2KB):'])
    expect(text).toContain('\n...\nLast 8KB:\n')
    expect(text.endsWith('19999\n20000\nExit code 0\n</persisted-output>')).toBe(true)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(30_000)
  })

  it('R38 builds the bash_output display only when the output was persisted', async () => {
    const small = await runBash({ command: 'echo hi' })
    expect(small.display).toBeUndefined()
    const large = await runBash({ command: 'seq 1 20000' })
    expect(large.display).toMatchObject({ kind: 'bash_output', command: 'seq 1 20000', exitCode: 0, persistedPath: large.serialization.persistedPath })
  })

  it('R32 streams a large output to an artifact while it runs, byte for byte, and shows head and tail', async () => {
    const result = await runBash({ command: 'seq 1 300000; echo fin >&2' })
    const output = outputOf(result)
    const expected = `${spawnSync('seq', ['1', '300000'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout}fin\n`
    expect(output.totalBytes).toBe(Buffer.byteLength(expected))
    expect(await readFile(output.persistedPath ?? '', 'utf8')).toBe(expected)
    expect(output.artifact).toMatchObject({ bytes: output.totalBytes, sha256: createHash('sha256').update(expected).digest('hex') })
    const text = textOf(result.modelContent)
    expect(text).toContain(`Output too large (${formatBytesBinary(output.totalBytes)}). Full output saved to: ${output.persistedPath}`)
    expect(text).toMatch(/Preview \(first 2KB\):\n1\n2\n3\n/)
    expect(text.endsWith('299999\n300000\nfin\nExit code 0\n</persisted-output>')).toBe(true)
    expect(result.display).toMatchObject({ kind: 'bash_output', truncated: true, originalBytes: output.totalBytes, persistedPath: output.persistedPath })
  })
})

describe('Bash: timeouts, aborts and the process tree', () => {
  it('R21 resolves its timeout as the command limit plus a 6 s grace for the watchdog', () => {
    const bash = createBashTool()
    expect(resolveTimeoutMs(bash, { command: 'x', timeout: 1000 }, 300_000)).toBe(7000)
    expect(resolveTimeoutMs(bash, { command: 'x' }, 300_000)).toBe(126_000)
    expect(resolveTimeoutMs(bash, { command: 'x', timeout: 9_000_000 }, 300_000)).toBe(606_000)
    expect([commandTimeoutMs(undefined), commandTimeoutMs(1000), commandTimeoutMs(9_000_000), commandTimeoutMs(0)]).toEqual([120_000, 1000, 600_000, 1])
  })

  it('R21 ends `sleep 30` with timeout 1000 as timed out within ~1.5 s and leaves no process behind', async () => {
    const started = performance.now()
    const result = await runBash({ command: 'sleep 30', timeout: 1000 })
    const elapsed = performance.now() - started
    const output = outputOf(result)
    expect(elapsed).toBeLessThan(1800)
    expect(result).toMatchObject({ isError: true, modelContent: 'Command timed out after 1000ms' })
    expect(output).toMatchObject({ timedOut: true, interrupted: true })
    expect(await eventually(() => groupMembers(output.pid ?? 0).length === 0, 1000)).toBe(true)
  })

  it('R21 kills a grandchild that left the main process too, and it cannot hold the call', async () => {
    const started = performance.now()
    const pending = runBash({ command: 'echo "$TOOLEXEC_PROCESS_TAG" > tag; bash -c \'(sleep 30 & echo $! > grandchild.pid) ; sleep 30\'', timeout: 1000 })
    const written = (name: string): boolean => existsSync(join(h.workspace, name)) && readFileSync(join(h.workspace, name), 'utf8').endsWith('\n')
    expect(await eventually(() => written('tag') && written('grandchild.pid'), 900)).toBe(true)
    const tag = readFileSync(join(h.workspace, 'tag'), 'utf8').trim()
    const grandchild = await hostPidSoon(Number(readFileSync(join(h.workspace, 'grandchild.pid'), 'utf8')), tag, 500)
    const output = outputOf(await pending)
    leftovers.push(output.pid ?? 0)
    expect(performance.now() - started).toBeLessThan(1800)
    expect(output.timedOut).toBe(true)
    expect(grandchild).toBeGreaterThan(0)
    expect(await eventually(() => !isRunning(grandchild) && groupMembers(output.pid ?? 0).length === 0, 1000)).toBe(true)
  })

  it('R21 kills with SIGKILL what ignores SIGTERM', async () => {
    const started = performance.now()
    const result = await runBash({ command: "trap '' TERM; sleep 30", timeout: 500 })
    expect(performance.now() - started).toBeLessThan(1500)
    expect(outputOf(result)).toMatchObject({ timedOut: true, exitCode: 137 })
    expect(await eventually(() => groupMembers(outputOf(result).pid ?? 0).length === 0, 1000)).toBe(true)
  })

  it('R23 kills the whole tree when the turn is aborted during a run', async () => {
    const controller = new AbortController()
    const pending = runBash({ command: '(sleep 30 &) ; sleep 30; echo never' }, { signal: controller.signal })
    const pid = await new Promise<number>((resolve) => {
      const timer = setInterval(() => {
        const progress = h.events.find((event) => event.type === 'ToolCallProgress')
        if (progress?.type !== 'ToolCallProgress') return
        clearInterval(timer)
        resolve(Number(progress.progress['pid']))
      }, 20)
    })
    leftovers.push(pid)
    expect(groupMembers(pid).length).toBeGreaterThanOrEqual(2)
    controller.abort()
    const result = await pending
    expect(result.status).toBe('cancelled')
    expect(await eventually(() => groupMembers(pid).length === 0, 1500)).toBe(true)
  })

  it('R21 kills on timeout the processes the command started outside its group, in a new session or by a double fork', async () => {
    const pending = runBash({ command: ESCAPING_COMMAND, timeout: 1000 })
    const left = await escapedFrom(h.workspace)
    const result = await pending
    leftovers.push(outputOf(result).pid ?? 0)
    expect(outputOf(result).timedOut).toBe(true)
    await expectNothingLeftOf(left)
  })

  it('R23 kills on abort the processes the command started outside its group', async () => {
    const controller = new AbortController()
    const pending = runBash({ command: ESCAPING_COMMAND }, { signal: controller.signal })
    const left = await escapedFrom(h.workspace)
    controller.abort()
    expect((await pending).status).toBe('cancelled')
    await expectNothingLeftOf(left)
  })

  it('R21 leaves alone what another command started outside its group when one command times out', async () => {
    const other = await h.shellTasks.start({ sessionId: 's1', callId: 'other', command: 'setsid sleep 300 & echo $! > other.pid; sleep 30', cwd: h.workspace })
    expect(await eventually(() => existsSync(join(h.workspace, 'other.pid')), 2000)).toBe(true)
    const otherEscaped = Number(await readFile(join(h.workspace, 'other.pid'), 'utf8'))
    escaped.push(otherEscaped)
    try {
      const pending = runBash({ command: ESCAPING_COMMAND, timeout: 500 })
      const left = await escapedFrom(h.workspace)
      leftovers.push(outputOf(await pending).pid ?? 0)
      await expectNothingLeftOf(left)
      expect(isRunning(otherEscaped)).toBe(true)
      expect(other.status).toBe('running')
    } finally {
      other.cancel()
      await other.done
    }
  })

  it('R21 leaves running, as it leaves background children, what a command that ends by itself started outside its group', async () => {
    const result = await runBash({ command: 'setsid sleep 300 & echo $! > escaped.pid; echo "$TOOLEXEC_PROCESS_TAG" > tag; echo done' })
    leftovers.push(outputOf(result).pid ?? 0)
    const tag = (await readFile(join(h.workspace, 'tag'), 'utf8')).trim()
    const pid = await hostPidSoon(Number(await readFile(join(h.workspace, 'escaped.pid'), 'utf8')), tag)
    escaped.push(pid)
    expect(pid).toBeGreaterThan(0)
    expect(result.modelContent).toBe('done')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(isRunning(pid)).toBe(true)
  })

  it('R21 returns soon after the main process exits even when a grandchild keeps the pipes open', async () => {
    const started = performance.now()
    const result = await runBash({ command: '(sleep 5 &) ; echo done' })
    leftovers.push(outputOf(result).pid ?? 0)
    expect(performance.now() - started).toBeLessThan(1500)
    expect(result.modelContent).toBe('done')
  })

  it('R28 treats an interrupted Bash as an error result', async () => {
    const result = await runBash({ command: 'echo partial; sleep 30', timeout: 1000 })
    expect(result).toMatchObject({ success: true, isError: true, modelContent: 'partial\nCommand timed out after 1000ms' })
  })
})

describe('Bash: progress and flags', () => {
  it('R37 reports progress while it runs: elapsed time, pid, the byte count and the interleaved tail', async () => {
    await runBash({ command: 'for i in 1 2 3; do echo line$i; echo warn$i >&2; sleep 0.4; done' })
    const progress = h.events.flatMap((event) => (event.type === 'ToolCallProgress' ? [event.progress] : []))
    expect(progress.length).toBeGreaterThanOrEqual(2)
    const last = progress[progress.length - 1] ?? {}
    expect(last).toMatchObject({ pid: anyOf(Number), outputBytes: anyOf(Number), outputTail: anyOf(String) })
    expect(Number(last['elapsedMs'])).toBeGreaterThan(Number(progress[0]?.['elapsedMs']))
    expect(String(last['outputTail'])).toMatch(/^line1\nwarn1\nline2\nwarn2\n/)
    expect(Number(last['outputBytes'])).toBe(Buffer.byteLength(String(last['outputTail'])))
  })

  it('R37 keeps the progress tail to the last 2 KiB of the output', async () => {
    await runBash({ command: 'seq 1 100000; sleep 0.7' })
    const progress = h.events.flatMap((event) => (event.type === 'ToolCallProgress' ? [event.progress] : []))
    const last = progress[progress.length - 1] ?? {}
    expect(Number(last['outputBytes'])).toBe(seqBytes(100_000))
    expect(Buffer.byteLength(String(last['outputTail']))).toBeLessThanOrEqual(2048)
    expect(String(last['outputTail']).endsWith('99999\n100000\n')).toBe(true)
  })

  it.each([
    ['ls -la', { readOnly: true, sideEffectScope: 'none', concurrentSafe: true }],
    ['git status && cat README.md | head', { readOnly: true, sideEffectScope: 'none', concurrentSafe: true }],
    ['touch x', { readOnly: false, sideEffectScope: 'system', concurrentSafe: false }],
    ['ls > listing.txt', { readOnly: false, sideEffectScope: 'system', concurrentSafe: false }],
  ])('R40 announces %j with its recomputed flags in ToolCallStarted', async (command, flags) => {
    await runBash({ command })
    const started = h.events.find((event) => event.type === 'ToolCallStarted')
    expect(started?.type === 'ToolCallStarted' ? started.flags : undefined).toMatchObject(flags)
  })

  it('R40 runs a read-only command without approval in the default mode, and asks for the rest', async () => {
    const reading = await runBash({ command: 'echo hello' }, { mode: 'default' })
    expect(reading).toMatchObject({ status: 'succeeded', modelContent: 'hello', permission: 'none' })
    const writing = await runBash({ command: 'touch made.txt' }, { mode: 'default' })
    expect(writing.status).toBe('denied')
    await expect(readFile(join(h.workspace, 'made.txt'))).rejects.toThrow()
  })
})

describe('Bash: a gigabyte of output', () => {
  it('R32 streams 1 GiB with peak RSS growing less than 100 MB, and the artifact matches the output exactly', async () => {
    const command = `seq 1 ${SEQ_OVER_ONE_GIB}`
    const reference = sha256Of(command)
    const baseline = process.memoryUsage().rss
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 20)
    const result = await runBash({ command, timeout: 600_000 })
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage().rss)
    const output = outputOf(result)
    const path = output.persistedPath ?? ''
    expect(seqBytes(SEQ_OVER_ONE_GIB)).toBeGreaterThan(GIB)
    expect(output.totalBytes).toBe(seqBytes(SEQ_OVER_ONE_GIB))
    expect(peak - baseline).toBeLessThan(100 * 1024 * 1024)
    expect((await stat(path)).size).toBe(seqBytes(SEQ_OVER_ONE_GIB))
    const [expected, saved] = await Promise.all([reference, sha256Of(`cat '${path}'`)])
    expect(saved).toMatch(/^[0-9a-f]{64}$/)
    expect(saved).toBe(expected)
    expect(output.artifact).toMatchObject({ bytes: seqBytes(SEQ_OVER_ONE_GIB), sha256: expected })
    expect(textOf(result.modelContent)).toContain(`${SEQ_OVER_ONE_GIB - 1}\n${SEQ_OVER_ONE_GIB}\nExit code 0\n</persisted-output>`)
  }, 180_000)
})

describe('Bash: the streaming artifact behind large output', () => {
  it('R36 streams into a hidden temporary file and publishes it whole, with its sha256, on close', async () => {
    const store = new FsArtifactStore({ dataDir: h.dataDir })
    const stream = await store.open({ sessionId: 's1', callId: 'c/1', mediaType: 'text/plain', retention: 'session' })
    const parts = [Buffer.from('héllo '), Buffer.from('wörld\n'.repeat(100_000))]
    for (const part of parts) await stream.write(part)
    const folder = join(h.dataDir, 'cli', 'artifacts', 's1')
    expect((await readdir(folder)).every((name) => name.endsWith('.tmp'))).toBe(true)
    const ref = await stream.close()
    const whole = Buffer.concat(parts)
    expect(ref).toMatchObject({ sessionId: 's1', callId: 'c/1', bytes: whole.length, sha256: createHash('sha256').update(whole).digest('hex') })
    expect(ref.path).toBe(join(folder, `c_1-${ref.id}.txt`))
    expect((await readFile(ref.path)).equals(whole)).toBe(true)
    expect(await readdir(folder)).toEqual([`c_1-${ref.id}.txt`])
  })

  it('R36 leaves nothing behind when a streamed artifact is discarded', async () => {
    const store = new FsArtifactStore({ dataDir: h.dataDir })
    const stream = await store.open({ sessionId: 's1', callId: 'c1', mediaType: 'text/plain', retention: 'session' })
    await stream.write(Buffer.from('partial'))
    await stream.discard()
    expect(await readdir(join(h.dataDir, 'cli', 'artifacts', 's1'))).toEqual([])
  })

  it('R32 keeps the head and the tail, and says the rest was not saved, when the store cannot stream', async () => {
    const store = new FsArtifactStore({ dataDir: h.dataDir })
    const wholeWritesOnly = createTestExecutor({
      registry: new InMemoryToolRegistry([createBashTool()]),
      artifacts: { write: (request) => store.write(request) },
    })
    const result = await wholeWritesOnly.execute(
      { id: 'no-stream', name: 'Bash', input: { command: 'seq 1 300000' } },
      { sessionId: 's1', workspace: h.workspace, permissionMode: 'bypassPermissions' },
    )
    const output = outputOf(result)
    expect(output.persistedPath).toBeUndefined()
    expect(output.artifactError).toBe('the artifact store cannot stream output')
    expect(output.omitted?.bytes).toBe(output.totalBytes - Buffer.byteLength(output.omitted?.head ?? '') - Buffer.byteLength(output.omitted?.tail ?? ''))
    expect(output.output).toContain(`\n\n... [${output.omitted?.bytes} bytes omitted] ...\n\n`)
    const text = textOf(result.modelContent)
    expect(text).toContain(`Output too large (${formatBytesBinary(output.totalBytes)}). The full output was not saved (the artifact store cannot stream output).`)
    expect(text.endsWith('300000\nExit code 0\n</persisted-output>')).toBe(true)
  })
})

describe('Bash: output written by the command itself into the artifact file', () => {
  const artifactFolder = (): string => join(h.dataDir, 'cli', 'artifacts', 's1')

  it('R32 leaves no file behind for a small output, nor for an aborted run', async () => {
    await runBash({ command: 'echo small' })
    const controller = new AbortController()
    const pending = runBash({ command: 'seq 1 300000; sleep 30' }, { signal: controller.signal })
    await eventually(() => h.events.some((event) => event.type === 'ToolCallProgress'), 2000)
    controller.abort()
    expect((await pending).status).toBe('cancelled')
    expect(await eventually(() => readdirSync(artifactFolder()).length === 0, 1000)).toBe(true)
  })

  it('R32 publishes exactly the bytes present when the command ended, though a process it left keeps writing', async () => {
    const command = 'seq 1 100000; (sleep 0.4; while :; do echo late; sleep 0.01; done) &'
    const result = await runBash({ command })
    const output = outputOf(result)
    leftovers.push(output.pid ?? 0)
    const expected = spawnSync('seq', ['1', '100000'], { encoding: 'utf8' }).stdout
    expect(output.totalBytes).toBe(Buffer.byteLength(expected))
    expect(output.artifact).toMatchObject({ bytes: output.totalBytes, sha256: createHash('sha256').update(expected).digest('hex') })
    await new Promise((resolve) => setTimeout(resolve, 700))
    expect(groupMembers(output.pid ?? 0).length).toBeGreaterThan(0)
    expect(await readFile(output.persistedPath ?? '', 'utf8')).toBe(expected)
    expect(readdirSync(artifactFolder())).toEqual([basename(output.persistedPath ?? '')])
  })

  it('R31 keeps a small output as it was when the command ended, though a process it left keeps writing', async () => {
    const result = await runBash({ command: 'echo first; (sleep 0.4; echo late) &' })
    leftovers.push(outputOf(result).pid ?? 0)
    expect(result.modelContent).toBe('first')
  })

  it('R32 copies a large output into a store that can stream but not reserve a file', async () => {
    const store = new FsArtifactStore({ dataDir: h.dataDir })
    const streamingOnly = createTestExecutor({
      registry: new InMemoryToolRegistry([createBashTool()]),
      artifacts: { write: (request) => store.write(request), open: (request) => store.open(request) },
    })
    const result = await streamingOnly.execute(
      { id: 'stream-only', name: 'Bash', input: { command: 'seq 1 300000' } },
      { sessionId: 's1', workspace: h.workspace, permissionMode: 'bypassPermissions' },
    )
    const output = outputOf(result)
    const expected = spawnSync('seq', ['1', '300000'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout
    expect(await readFile(output.persistedPath ?? '', 'utf8')).toBe(expected)
    expect(output.artifact).toMatchObject({ bytes: Buffer.byteLength(expected), sha256: createHash('sha256').update(expected).digest('hex') })
  })

  it('R1 lets a running background task be read from its file: head and tail of a large output so far', async () => {
    const tasks = new ShellTaskStore()
    const task = await tasks.start({ sessionId: 's1', callId: 'bg', command: 'seq 1 300000; sleep 30', cwd: h.workspace, artifacts: new FsArtifactStore({ dataDir: h.dataDir }) })
    expect(await eventually(() => task.snapshot().output.totalBytes === seqBytes(300_000), 3000)).toBe(true)
    const running = task.snapshot()
    expect(running.status).toBe('running')
    expect(running.output.omitted?.head.startsWith('1\n2\n3\n')).toBe(true)
    expect(running.output.omitted?.tail.endsWith('299999\n300000\n')).toBe(true)
    task.cancel()
    const final = await task.done
    expect(final.status).toBe('killed')
    expect(final.output.artifact?.bytes).toBe(seqBytes(300_000))
  })
})
