import { spawn } from 'node:child_process'
import { openSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { groupIsRunning, signalGroup, spawnShell, type ShellProcess } from '../../src/tools/bash/process-tree.js'
import { confinementFor, DEFAULT_SANDBOX_SETTINGS } from '../../src/tools/bash/sandbox.js'
import { probeSandbox } from '../../src/tools/bash/sandbox-probe.js'
import { eventually, groupMembers, isRunning, killAll } from '../support/processes.js'
import { tempDirSync } from '../support/temp-dirs.js'

const OWNER = fileURLToPath(new URL('../support/shell-owner.ts', import.meta.url))
const groups: number[] = []
const escaped: number[] = []
let dir: string | undefined

afterEach(() => {
  for (const pgid of groups.splice(0)) signalGroup(pgid, 'SIGKILL')
  killAll(escaped.splice(0))
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

/** Starts a server-like owner process running `command`; resolves with it and the command's group. */
async function ownerRunning(command: string): Promise<{ owner: ReturnType<typeof spawn>; pgid: number }> {
  dir = tempDirSync('tree')
  const owner = spawn(process.execPath, ['--import', 'tsx', OWNER, command, path.join(dir, 'out')], { stdio: ['ignore', 'pipe', 'inherit'] })
  const pgid = await new Promise<number>((resolve, reject) => {
    let text = ''
    owner.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      if (text.includes('\n')) resolve(Number.parseInt(text, 10))
    })
    owner.once('exit', (code) => reject(new Error(`owner exited with ${code}`)))
  })
  groups.push(pgid)
  return { owner, pgid }
}

describe('a command whose server dies', () => {
  it('is killed with its whole tree when the server is killed with SIGKILL', async () => {
    // A grandchild in the background and one that ignores SIGTERM.
    const { owner, pgid } = await ownerRunning("sleep 30 & trap '' TERM; sleep 30")
    expect(signalGroup(pgid, 0)).toBe(true)
    owner.kill('SIGKILL')
    await expect.poll(() => signalGroup(pgid, 0), { timeout: 3_000 }).toBe(false)
  })

  it('takes with it what the command started outside its group, in a new session or by a double fork', async () => {
    const { owner } = await ownerRunning("setsid sleep 300 & echo $!; (setsid bash -c 'sleep 300 & echo $!' &); sleep 30")
    const out = path.join(dir ?? '', 'out')
    const pidsWritten = (): number[] =>
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map(Number)
    expect(await eventually(() => pidsWritten().length === 2, 2000)).toBe(true)
    const pids = pidsWritten()
    escaped.push(...pids)
    expect(pids.every(isRunning)).toBe(true)
    owner.kill('SIGKILL')
    expect(await eventually(() => pids.every((pid) => !isRunning(pid)), 3000)).toBe(true)
  })

  it('runs on while the server lives', async () => {
    const { owner, pgid } = await ownerRunning('sleep 30')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(signalGroup(pgid, 0)).toBe(true)
    owner.kill('SIGKILL')
  })
})

/** Starts `command` confined and resolves once its main process has exited. */
async function confinedShellExited(command: string): Promise<{ shell: ShellProcess; pgid: number; output: string }> {
  dir = tempDirSync('tree')
  const output = path.join(dir, 'out')
  const confinement = confinementFor({ workspace: dir, cwd: dir, writes: 'workspace', settings: DEFAULT_SANDBOX_SETTINGS })
  const shell = spawnShell(command, dir, { PATH: process.env.PATH ?? '' }, openSync(output, 'w'), confinement)
  await new Promise((resolve) => shell.child.once('exit', resolve))
  const pgid = (await shell.groupId) ?? 0
  groups.push(pgid)
  return { shell, pgid, output }
}

describe("a confined command's group", () => {
  beforeAll(() => {
    expect(probeSandbox('auto').confined, 'bubblewrap must be able to start here (.ci/run installs it)').toBe(true)
  })

  it("is running, known from its sandbox's init, while a process the command left runs inside, and not once it ends", async () => {
    const { shell, pgid } = await confinedShellExited('sleep 0.8 &')
    const init = await shell.sandboxInit
    expect(init).toBeGreaterThan(0)
    expect(init).not.toBe(pgid)
    expect(groupMembers(pgid)).toContain(init)
    expect(groupIsRunning(pgid, init)).toBe(true)
    expect(groupIsRunning(pgid)).toBe(true)
    expect(await eventually(() => !groupIsRunning(pgid, init), 3000)).toBe(true)
    expect(groupMembers(pgid)).toEqual([])
  })

  it("is over within moments for a command that left nothing, though its sandbox's init may linger unreaped", async () => {
    const { shell, pgid } = await confinedShellExited('true')
    const init = await shell.sandboxInit
    // bwrap's monitor may exit a moment before its init has finished exiting.
    expect(await eventually(() => !groupIsRunning(pgid, init), 1000)).toBe(true)
    expect(groupIsRunning(pgid)).toBe(false)
  })

  it("gives the command no descriptor of the pipe that reports the sandbox's init", async () => {
    const { output } = await confinedShellExited('echo forged >&6 && echo wrote; echo status $?')
    expect(readFileSync(output, 'utf8')).toMatch(/Bad file descriptor\nstatus 1\n$/)
  })
})
