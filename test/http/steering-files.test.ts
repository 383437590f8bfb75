/**
 * Issue 23 C: a workspace's `.toolexec/config.json` is read so that it can neither hold the
 * server nor show anything from outside the workspace. A FIFO there is refused at once while
 * /healthz keeps answering (the server runs in its own process: a blocked one would not answer
 * at all); a symlink to an outside file never puts that file's text into a reason.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { startMain, type MainChild } from '../support/main-process.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const SECRET = 'SECRET-7f3a9c do not show'
const DENIED_BY_ASK = (file: string, problem: string): string => `The rule invalid ${file}: ${problem} asks before Read runs, and dontAsk mode denies what would ask`

async function json<T>(url: string, method: string, body?: unknown, timeoutMs = 15_000): Promise<{ status: number; body: T }> {
  const init: RequestInit = { method, signal: AbortSignal.timeout(timeoutMs) }
  if (body !== undefined) Object.assign(init, { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
  const response = await fetch(url, init)
  return { status: response.status, body: (await response.json()) as T }
}

/** A workspace whose `.toolexec/config.json` is made by `make`. */
function workspaceWith(make: (file: string) => void): { workspace: string; file: string } {
  const workspace = tempDirSync('steering-ws')
  mkdirSync(path.join(workspace, '.toolexec'))
  const file = path.join(workspace, '.toolexec', 'config.json')
  make(file)
  return { workspace, file }
}

function outsideSecretFile(): string {
  const file = path.join(tempDirSync('steering-outside'), 'secret.txt')
  writeFileSync(file, `${SECRET}\n`)
  return file
}

describe('a FIFO as .toolexec/config.json, on a server in its own process', () => {
  let server: MainChild

  beforeAll(async () => {
    server = await startMain(tempDirSync('steering-data'), 5_000)
  }, 60_000)

  afterAll(() => {
    // SIGKILL: a server held by the FIFO would not even stop on SIGTERM.
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
  })

  it('a call in that workspace gets a clear reason at once, /healthz answers meanwhile, and SIGTERM stops the server', async () => {
    const { workspace, file } = workspaceWith((name) => execFileSync('mkfifo', [name]))
    expect((await json(`${server.url}/sessions`, 'POST', { id: 'fifo', workspace, permissionMode: 'dontAsk' })).status).toBe(201)
    const accepted = await json<ScheduleAcceptedReply>(`${server.url}/schedules`, 'POST', { sessionId: 'fifo', calls: [{ id: 'r1', name: 'Read', input: { file_path: 'a.txt' } }] })
    expect(accepted.status).toBe(202)
    const done = await json<ScheduleReply>(`${server.url}/schedules/${accepted.body.scheduleId}?wait=10`, 'GET')
    expect(done.body.calls[0]).toMatchObject({ status: 'denied', modelContent: DENIED_BY_ASK(file, 'it is not a regular file') })
    expect(await json(`${server.url}/healthz`, 'GET', undefined, 5_000)).toMatchObject({ status: 200 })
    server.child.kill('SIGTERM')
    const exited = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 15_000))])
    expect(exited).toBe(0)
  }, 60_000)
})

describe('a symlink as .toolexec/config.json or .toolexec', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer()
  })

  afterAll(async () => {
    await server.close()
  })

  async function readIn(workspace: string, id: string): Promise<ScheduleReply['calls'][number]> {
    expect((await server.json('POST', '/sessions', { id, workspace, permissionMode: 'dontAsk' })).status).toBe(201)
    const accepted = await server.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: id, calls: [{ id: `${id}-r`, name: 'Read', input: { file_path: 'a.txt' } }] })
    const done = await server.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)
    return done.body.calls[0] as ScheduleReply['calls'][number]
  }

  it('a config that is a symlink to an outside file: the reason says so and holds none of its text', async () => {
    const secret = outsideSecretFile()
    const { workspace, file } = workspaceWith((name) => symlinkSync(secret, name))
    const call = await readIn(workspace, 'link-file')
    expect(call).toMatchObject({ status: 'denied', modelContent: DENIED_BY_ASK(file, 'it is a symbolic link') })
    expect(JSON.stringify(call)).not.toContain('SECRET')
  })

  it('a .toolexec directory that is a symlink out of the workspace: the config there is not read', async () => {
    const secret = outsideSecretFile()
    const outsideDir = path.dirname(secret)
    writeFileSync(path.join(outsideDir, 'config.json'), `${SECRET}\n`)
    const workspace = tempDirSync('steering-ws')
    symlinkSync(outsideDir, path.join(workspace, '.toolexec'))
    const call = await readIn(workspace, 'link-dir')
    expect(call).toMatchObject({ status: 'denied', modelContent: DENIED_BY_ASK(path.join(workspace, '.toolexec', 'config.json'), 'it leads outside the workspace') })
    expect(JSON.stringify(call)).not.toContain('SECRET')
  })

  it('a config inside the workspace that is not JSON: the reason gives the place, not the text', async () => {
    const { workspace, file } = workspaceWith((name) => writeFileSync(name, `{\n  "permissions": ${SECRET}\n}\n`))
    const call = await readIn(workspace, 'not-json')
    expect(call).toMatchObject({ status: 'denied', modelContent: DENIED_BY_ASK(file, 'it is not valid JSON (line 2, column 18)') })
  })
})
