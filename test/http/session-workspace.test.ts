import { symlinkSync } from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorReply } from '../../src/contracts/api.js'
import { installRoot } from '../../src/tools/bash/server-paths.js'
import { settledRowCounts, startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const INSTALL = installRoot()

/** Every line the server logs, kept in memory. */
const lines: string[] = []
const memory = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    lines.push(chunk.toString())
    callback()
  },
})

let own: TestServer
let inInstall: TestServer

beforeAll(async () => {
  ;[own, inInstall] = await Promise.all([startTestServer(), startTestServer({ workspace: INSTALL, logger: pino({ level: 'warn' }, memory) })])
})

afterAll(async () => {
  await Promise.all([own.close(), inInstall.close()])
})

function expectRefused(reply: { status: number; body: ErrorReply }, workspace: string): void {
  expect(reply.status).toBe(400)
  expect(reply.body.error).toEqual({
    code: 'API_ERR_WORKSPACE_IN_INSTALL',
    message: `Workspace ${workspace} is inside the server's own install directory (${INSTALL}), where no session may work; give the session a workspace of its own ("workspace", or TOOLEXEC_WORKSPACE for sessions that name none)`,
  })
}

describe("a session's workspace is never the server's own install directory", () => {
  it.each([
    ['the install directory', INSTALL],
    ['a folder inside it', path.join(INSTALL, 'src')],
  ])('POST /sessions refuses %s with 400 and stores nothing', async (_case, workspace) => {
    const before = await settledRowCounts(own)
    expectRefused(await own.json<ErrorReply>('POST', '/sessions', { workspace }), workspace)
    expect(await settledRowCounts(own)).toEqual(before)
  })

  it('refuses a symbolic link to the install directory', async () => {
    const link = path.join(tempDirSync('install-link'), 'checkout')
    symlinkSync(INSTALL, link)
    expectRefused(await own.json<ErrorReply>('POST', '/sessions', { workspace: link }), link)
  })

  it('POST /schedules refuses a createSession on the install directory, and stores nothing', async () => {
    const before = await settledRowCounts(own)
    const reply = await own.json<ErrorReply>('POST', '/schedules', {
      sessionId: 'in-install',
      createSession: { workspace: INSTALL },
      calls: [{ id: 'r', name: 'Read', input: { file_path: 'package.json' } }],
    })
    expectRefused(reply, INSTALL)
    expect(await settledRowCounts(own)).toEqual(before)
  })

  it('a server whose default workspace is its install directory warns at start, and refuses sessions that name no workspace of their own', async () => {
    const warning = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string; workspace?: string })
      .find((line) => line.msg.startsWith("The default workspace is the server's own install directory"))
    expect(warning).toMatchObject({ level: 40, workspace: INSTALL })
    expectRefused(await inInstall.json<ErrorReply>('POST', '/sessions', {}), INSTALL)
    expectRefused(await inInstall.json<ErrorReply>('POST', '/sessions', { workspace: 'examples' }), path.join(INSTALL, 'examples'))
    expectRefused(await inInstall.json<ErrorReply>('POST', '/schedules', { sessionId: 'defaults', createSession: {}, calls: [] }), INSTALL)
    expect((await inInstall.json('POST', '/sessions', { workspace: inInstall.dataDir })).status).toBe(201)
  })
})
