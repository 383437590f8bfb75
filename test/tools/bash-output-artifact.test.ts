/**
 * The artifact of a large Bash output, hashed while the command writes it: its bytes and its
 * sha256 must be exactly the file's, whatever the command does to its output.
 */
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import type { BashCommandOutput } from '../../src/tools/bash/bash-output.js'
import { eventually } from '../support/processes.js'
import { openShellHarness, type ShellHarness } from '../support/shell-harness.js'

const MB = 1000 * 1000

let h: ShellHarness
let leftovers: number[]

beforeEach(async () => {
  h = await openShellHarness('bash-artifact')
  leftovers = []
})

afterEach(async () => {
  for (const pgid of leftovers) {
    try {
      process.kill(-pgid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  await h.close()
})

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')

/** A file of `bytes` random bytes in the workspace; returns its content. */
function inWorkspace(name: string, bytes: number): Buffer {
  const content = randomBytes(bytes)
  writeFileSync(join(h.workspace, name), content)
  return content
}

function outputOf(result: ToolExecutionResult): BashCommandOutput {
  return result.output as BashCommandOutput
}

/** The published artifact: its file holds exactly `bytes` bytes, whose sha256 is recorded. */
async function publishedBytes(output: BashCommandOutput): Promise<Buffer> {
  expect(output.artifact).toBeDefined()
  const saved = await readFile(output.artifact?.path ?? '')
  expect(saved.length).toBe(output.artifact?.bytes)
  expect(output.artifact?.sha256).toBe(sha256(saved))
  return saved
}

describe('R36 the artifact of a large output, hashed while it is written', () => {
  it.each([1 * MB, 10 * MB, 100 * MB])(
    'R32 keeps %i bytes exactly, with their sha256',
    async (bytes) => {
      const content = inWorkspace('out.bin', bytes)
      const output = outputOf(await h.call('Bash', { command: 'cat out.bin', timeout: 120_000 }))
      expect(output.exitCode).toBe(0)
      expect(output.totalBytes).toBe(bytes)
      expect((await publishedBytes(output)).equals(content)).toBe(true)
    },
    60_000,
  )

  it('R32 keeps what the command writes after a pause in which the hash caught up', async () => {
    const first = inWorkspace('first.bin', 20 * MB)
    const second = inWorkspace('second.bin', 7 * MB + 3)
    const output = outputOf(await h.call('Bash', { command: 'cat first.bin; sleep 0.5; cat second.bin; sleep 0.3; echo end' }))
    expect((await publishedBytes(output)).equals(Buffer.concat([first, second, Buffer.from('end\n')]))).toBe(true)
  }, 60_000)

  it('R32 keeps only what is left once the command truncated its own output (`> /dev/stderr`)', async () => {
    inWorkspace('before.bin', 20 * MB)
    const after = inWorkspace('after.bin', 12 * MB)
    const output = outputOf(await h.call('Bash', { command: 'cat before.bin; sleep 0.3; cat after.bin > /dev/stderr' }))
    expect(output.totalBytes).toBe(after.length)
    expect((await publishedBytes(output)).equals(after)).toBe(true)
  }, 60_000)

  it('R32 keeps the new bytes when the command truncated its output and wrote more than before', async () => {
    inWorkspace('before.bin', 10 * MB)
    const after = inWorkspace('after.bin', 40 * MB)
    const output = outputOf(await h.call('Bash', { command: 'cat before.bin; sleep 0.3; cat after.bin > /dev/stdout' }))
    expect(output.totalBytes).toBe(after.length)
    expect((await publishedBytes(output)).equals(after)).toBe(true)
  }, 60_000)

  it('R32 publishes exactly the bytes present at the end though a process it left keeps writing fast', async () => {
    const content = inWorkspace('out.bin', 20 * MB)
    const output = outputOf(await h.call('Bash', { command: 'cat out.bin; (while :; do echo late; sleep 0.002; done) &' }))
    leftovers.push(output.pid ?? 0)
    const saved = await publishedBytes(output)
    expect(saved.length).toBe(output.totalBytes)
    expect(saved.subarray(0, content.length).equals(content)).toBe(true)
    expect(saved.subarray(content.length).toString()).toMatch(/^(late\n)*$/)
  }, 60_000)

  it('R32 publishes what a command killed by its timeout in the middle of writing had written', async () => {
    inWorkspace('chunk.bin', 1 * MB)
    const output = outputOf(await h.call('Bash', { command: 'while :; do cat chunk.bin; done', timeout: 1500 }))
    expect(output.timedOut).toBe(true)
    expect(output.totalBytes).toBeGreaterThan(8 * 1024 * 1024)
    expect((await publishedBytes(output)).length).toBe(output.totalBytes)
  }, 60_000)

  it('leaves nothing behind when the call is aborted while its large output is being hashed', async () => {
    inWorkspace('chunk.bin', 1 * MB)
    const controller = new AbortController()
    const pending = h.call('Bash', { command: 'while :; do cat chunk.bin; sleep 0.01; done' }, { signal: controller.signal })
    const large = (): boolean => h.events.some((event) => event.type === 'ToolCallProgress' && Number(event.progress['outputBytes']) > 20 * MB)
    expect(await eventually(large, 10_000)).toBe(true)
    controller.abort()
    expect((await pending).status).toBe('cancelled')
    const folder = join(h.dataDir, 'cli', 'artifacts', 's1')
    expect(await eventually(() => readdirSync(folder).length === 0, 2000)).toBe(true)
  }, 60_000)
})
