/**
 * Issue 26, background tasks of a server that died: a child-process server starts Bash commands
 * in the background, is killed with SIGKILL while one runs, and restarts on the same data
 * directory. The running one is lost (its record, the session's event log, TaskOutput and
 * TaskStop say so, with the file its output went to); the one that ended before still tells how
 * it ended; an id that never existed is still unknown. Deleting the session removes its file.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Session } from '../../src/contracts/api.js'
import { killWrittenPid, modelText, outputShows, runCall, startInBackground } from '../support/background-calls.js'
import { readAllEvents, spawnCrashServer, type CrashChild } from '../support/crash-child.js'
import { closedUnion, validator } from '../support/event-validator.js'
import { tempDirSync } from '../support/temp-dirs.js'

const SESSION = 'bg'
const BYPASS = { permissionMode: 'bypassPermissions' }

let dataDir = ''
let pidFile = ''
let restarted: CrashChild
let lostTask = ''
let endedTask = ''
let nodeId = ''
let outputPath = ''
const children: CrashChild[] = []

async function spawn(): Promise<CrashChild> {
  const child = await spawnCrashServer(dataDir, tempDirSync('bg-markers'), { env: { CRASH_BACKGROUND_TASKS: '1' } })
  children.push(child)
  return child
}

beforeAll(async () => {
  dataDir = tempDirSync('bg-crash')
  pidFile = path.join(tempDirSync('bg-pid'), 'sleep.pid')
  const first = await spawn()
  nodeId = (await first.json<{ self: string }>('GET', '/cluster')).body.self
  endedTask = await startInBackground(first, SESSION, 'echo finished early; exit 3', BYPASS)
  expect(modelText(await runCall(first, SESSION, 'TaskOutput', { task_id: endedTask }))).toContain('<exit_code>3</exit_code>')
  lostTask = await startInBackground(first, SESSION, `echo $$ > ${pidFile}; echo started; exec sleep 300`)
  await outputShows(first, SESSION, lostTask, 'started')
  await first.kill()
  restarted = await spawn()
}, 30_000)

afterAll(async () => {
  for (const child of children) await child.kill()
  killWrittenPid(pidFile)
})

describe('a background task of a server killed with SIGKILL, after the restart', () => {
  it('is reported lost by TaskOutput, with the server that ran it and the file that holds its output up to then', async () => {
    const text = modelText(await runCall(restarted, SESSION, 'TaskOutput', { task_id: lostTask }))
    outputPath = /its output up to then is in (\S+)<\/error>/.exec(text)?.[1] ?? ''
    expect(outputPath).toMatch(new RegExp(`^${dataDir}/`))
    expect(text).toBe(
      [
        '<retrieval_status>success</retrieval_status>',
        `<task_id>${lostTask}</task_id>`,
        '<task_type>local_bash</task_type>',
        '<status>lost</status>',
        `<error>Task ${lostTask} was lost: the server that ran it stopped (node ${nodeId}) before it ended; its output up to then is in ${outputPath}</error>`,
        '<output>',
        'started',
        '</output>',
      ].join('\n'),
    )
  })

  it('TaskStop says it is not running (status: lost), and why', async () => {
    const stop = await runCall(restarted, SESSION, 'TaskStop', { task_id: lostTask })
    expect(stop.status).toBe('failed')
    expect(modelText(stop)).toBe(
      `<tool_use_error>Task ${lostTask} is not running (status: lost): the server that ran it stopped (node ${nodeId}) before it ended; its output up to then is in ${outputPath}</tool_use_error>`,
    )
  })

  it("the session's event log says so once, in a BackgroundTaskLost event the contract documents", async () => {
    const last = (await restarted.json<Session>('GET', `/sessions/${SESSION}`)).body.lastEventId
    const lost = (await readAllEvents(restarted.url, SESSION, last)).filter((frame) => frame.event === 'BackgroundTaskLost')
    expect(lost).toHaveLength(1)
    const { seq, at, callId, command, ...event } = lost[0]?.data ?? {}
    expect(event).toEqual({ type: 'BackgroundTaskLost', sessionId: SESSION, taskId: lostTask, nodeId, outputPath })
    expect([typeof seq, typeof at, typeof callId, command]).toEqual(['number', 'string', 'string', `echo $$ > ${pidFile}; echo started; exec sleep 300`])
    const validate = validator(closedUnion())
    expect(validate(lost[0]?.data), JSON.stringify(validate.errors)).toBe(true)
  })

  it('a task that ended before the crash still tells how it ended; an id that never existed is still unknown', async () => {
    const ended = modelText(await runCall(restarted, SESSION, 'TaskOutput', { task_id: endedTask }))
    expect(ended).toContain('<status>failed</status>\n<exit_code>3</exit_code>')
    expect(ended).toContain(`<error>Task ${endedTask} ended (failed) on node ${nodeId}; its output is no longer kept</error>`)
    expect(modelText(await runCall(restarted, SESSION, 'TaskStop', { task_id: endedTask }))).toBe(`<tool_use_error>Task ${endedTask} is not running (status: failed)</tool_use_error>`)
    for (const tool of ['TaskOutput', 'TaskStop']) {
      expect(modelText(await runCall(restarted, SESSION, tool, { task_id: 'bash_00000000' }))).toBe('<tool_use_error>No task found with ID: bash_00000000</tool_use_error>')
    }
  })

  it('goes with its session: deleted, its output file is removed, and a new session of the same id knows no such task', async () => {
    expect(existsSync(outputPath)).toBe(true)
    expect((await restarted.json('DELETE', `/sessions/${SESSION}`)).status).toBe(204)
    expect(existsSync(outputPath)).toBe(false)
    expect(modelText(await runCall(restarted, SESSION, 'TaskOutput', { task_id: lostTask }, BYPASS))).toBe(`<tool_use_error>No task found with ID: ${lostTask}</tool_use_error>`)
  })
})
