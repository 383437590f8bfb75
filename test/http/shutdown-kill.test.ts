/**
 * `npm start` on SIGTERM ends its process once the database is closed: whatever a command
 * left that ignores SIGTERM must have had its SIGKILL by then, or it outlives the server.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply } from '../../src/contracts/api.js'
import { isRunning, killAll } from '../support/processes.js'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const JSON_HEADERS = { 'content-type': 'application/json' }

interface MainChild {
  readonly url: string
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
}

/** `src/main.ts` as `npm start` runs it, on a free port, with no grace period for running calls. */
async function startMain(dataDir: string): Promise<MainChild> {
  const env = { ...process.env, NODE_OPTIONS: '', PORT: '0', TOOLEXEC_DATA_DIR: dataDir, TOOLEXEC_WORKSPACE: dataDir, TOOLEXEC_SHUTDOWN_GRACE_MS: '0', LOG_LEVEL: 'info' }
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output)
      if (match?.[1] !== undefined) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${output}`)))
  })
  child.stdout?.resume()
  child.stderr?.resume()
  return { url, child, exited }
}

describe('npm start on SIGTERM, with a command still running', () => {
  it.each([
    ['in the command\'s process group', ''],
    ['outside its process group', 'setsid '],
  ])('leaves no process behind that ignores SIGTERM, %s', async (_, prefix) => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-stop-kill-'))
    const server = await startMain(dataDir)
    const pidFile = path.join(dataDir, 'stubborn.pid')
    const stubborn = `trap "" TERM; echo $$ > ${pidFile}; while :; do sleep 0.05; done`
    const command = `${prefix}bash -c '${stubborn}' & sleep 30`
    let pid: number | undefined
    try {
      await fetch(`${server.url}/sessions`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ id: 's1', permissionMode: 'bypassPermissions' }) })
      const calls = [{ id: 'c1', name: 'Bash', input: { command } }]
      const reply = await fetch(`${server.url}/schedules`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ sessionId: 's1', calls }) })
      expect(((await reply.json()) as ScheduleAcceptedReply).scheduleId).toBeDefined()
      await expect.poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), { timeout: 5_000 }).toBe(true)
      pid = Number(readFileSync(pidFile, 'utf8'))
      expect(isRunning(pid)).toBe(true)

      server.child.kill('SIGTERM')
      expect(await server.exited).toBe(0)
      // A SIGKILL sent before the exit has taken effect by now; none will come later.
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(isRunning(pid)).toBe(false)
    } finally {
      server.child.kill('SIGKILL')
      if (pid !== undefined) killAll([pid])
    }
  }, 30_000)
})
