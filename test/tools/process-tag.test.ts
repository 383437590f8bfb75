import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterEach, describe, expect, it } from 'vitest'
import { PROCESS_TAG_VARIABLE, createProcessTag, signalTagged } from '../../src/tools/bash/process-tag.js'
import { eventually, isRunning, killAll, processesTagged } from '../support/processes.js'

const PROCESS_TAG_MODULE = fileURLToPath(new URL('../../src/tools/bash/process-tag.ts', import.meta.url))
const started: ChildProcess[] = []

afterEach(() => {
  killAll(
    started
      .splice(0)
      .map((child) => child.pid ?? 0)
      .filter((pid) => pid > 0),
  )
})

function sleeperWith(env: Record<string, string>): number {
  const child = spawn('sleep', ['30'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' })
  started.push(child)
  return child.pid ?? 0
}

describe('the process tag', () => {
  it('signals only the processes whose environment holds exactly that tag', async () => {
    const tag = createProcessTag()
    const tagged = sleeperWith({ [PROCESS_TAG_VARIABLE]: tag })
    const longerTag = sleeperWith({ [PROCESS_TAG_VARIABLE]: `${tag}0` })
    const otherVariable = sleeperWith({ [`X${PROCESS_TAG_VARIABLE}`]: tag })
    const inAValue = sleeperWith({ NOTE: `${PROCESS_TAG_VARIABLE}=${tag}` })
    expect(await eventually(() => processesTagged(tag).length === 1, 2000)).toBe(true)
    expect(signalTagged(tag, 'SIGKILL')).toBe(1)
    expect(await eventually(() => !isRunning(tagged), 1000)).toBe(true)
    expect([longerTag, otherVariable, inAValue].every(isRunning)).toBe(true)
  })

  it('never signals the process that scans, though it carries the tag', () => {
    const tag = createProcessTag()
    // The module as plain JavaScript: a loader compiling it at run time (tsx) may start a
    // compiler process, which inherits the tag and would rightly be signalled.
    const module = ts.transpileModule(readFileSync(PROCESS_TAG_MODULE, 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
    const script = `${module}\nconsole.log(signalTagged(${JSON.stringify(tag)}, 'SIGKILL'))`
    const scanner = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, [PROCESS_TAG_VARIABLE]: tag },
      encoding: 'utf8',
    })
    expect({ signal: scanner.signal, status: scanner.status, stdout: scanner.stdout.trim() }).toEqual({ signal: null, status: 0, stdout: '0' })
  })

  it('makes a different tag each time', () => {
    const tags = new Set(Array.from({ length: 1000 }, createProcessTag))
    expect(tags.size).toBe(1000)
    expect([...tags].every((tag) => /^[0-9a-f]{24}$/.test(tag))).toBe(true)
  })
})
