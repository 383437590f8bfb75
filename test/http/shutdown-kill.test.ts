/**
 * `npm start` on SIGTERM ends its process once the database is closed: whatever a command
 * left that ignores SIGTERM must have had its SIGKILL by then, or it outlives the server.
 */
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply } from '../../src/contracts/api.js'
import { startMain } from '../support/main-process.js'
import { hostPidInFile, isRunning, killAll } from '../support/processes.js'
import { tempDirSync } from '../support/temp-dirs.js'

const JSON_HEADERS = { 'content-type': 'application/json' }

describe('npm start on SIGTERM, with a command still running', () => {
  it.each([
    ["in the command's process group", ''],
    ['outside its process group', 'setsid '],
  ])(
    'leaves no process behind that ignores SIGTERM, %s',
    async (_, prefix) => {
      const dataDir = tempDirSync('stop-kill')
      const server = await startMain(dataDir, 0)
      const pidFile = path.join(dataDir, 'stubborn.pid')
      const stubborn = `trap "" TERM; echo "$$ $TOOLEXEC_PROCESS_TAG" > ${pidFile}; while :; do sleep 0.05; done`
      const command = `${prefix}bash -c '${stubborn}' & sleep 30`
      let pid: number | undefined
      try {
        await fetch(`${server.url}/sessions`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ id: 's1', permissionMode: 'bypassPermissions' }) })
        const calls = [{ id: 'c1', name: 'Bash', input: { command } }]
        const reply = await fetch(`${server.url}/schedules`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ sessionId: 's1', createSession: {}, calls }) })
        expect(((await reply.json()) as ScheduleAcceptedReply).scheduleId).toBeDefined()
        await expect.poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), { timeout: 5_000 }).toBe(true)
        pid = hostPidInFile(pidFile)
        expect(pid).toBeGreaterThan(0)
        expect(isRunning(pid ?? 0)).toBe(true)

        server.child.kill('SIGTERM')
        expect(await server.exited).toBe(0)
        // A SIGKILL sent before the exit has taken effect by now; none will come later.
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(isRunning(pid ?? 0)).toBe(false)
      } finally {
        server.child.kill('SIGKILL')
        if (pid !== undefined) killAll([pid])
      }
    },
    30_000,
  )
})
