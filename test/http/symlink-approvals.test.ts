import { existsSync } from 'node:fs'
import { mkdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PermissionRequestRecord, ScheduleAcceptedReply, ScheduleReply } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { useHttpSuite } from '../support/http-suite.js'
import { tempDir } from '../support/permission-tools.js'
import type { TestServer } from '../support/server.js'
import { textOf } from '../support/model-text.js'

let s: TestServer
const suite = useHttpSuite(
  (server) => {
    s = server
  },
  { tools: builtinTools() },
)

/** A workspace holding `out-link`, a symlink to a directory outside it with `secret.txt`. */
async function linkedWorkspace(): Promise<{ workspace: string; outside: string }> {
  const root = await realpath(await tempDir('symlink-approvals'))
  const workspace = path.join(root, 'ws')
  const outside = path.join(root, 'outside')
  await mkdir(workspace)
  await mkdir(outside)
  await writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET\n')
  await symlink(outside, path.join(workspace, 'out-link'))
  return { workspace, outside }
}

async function session(workspace: string, extra: Record<string, unknown> = {}): Promise<string> {
  const id = suite.fresh('link')
  expect((await s.json('POST', '/sessions', { id, workspace, ...extra })).status).toBe(201)
  return id
}

async function submit(sessionId: string, name: string, input: Record<string, unknown>): Promise<string> {
  const reply = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId, createSession: {}, calls: [{ id: 'c1', name, input }] })
  expect(reply.status).toBe(202)
  return reply.body.scheduleId
}

async function pendingRequest(sessionId: string): Promise<PermissionRequestRecord> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const reply = await s.json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${sessionId}&status=pending`)
    const [request] = reply.body.requests
    if (request !== undefined) return request
    if (Date.now() > deadline) throw new Error(`no pending request in ${sessionId}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

async function finished(scheduleId: string): Promise<ScheduleReply> {
  return (await s.json<ScheduleReply>('GET', `/schedules/${scheduleId}?wait=10`)).body
}

describe('a symlink inside the workspace that leads outside', () => {
  it('a Write through it asks naming where it leads; only that approval lets it out', async () => {
    const { workspace, outside } = await linkedWorkspace()
    const sessionId = await session(workspace)
    const scheduleId = await submit(sessionId, 'Write', { file_path: 'out-link/planted.txt', content: 'x\n' })
    const request = await pendingRequest(sessionId)
    expect(request.riskLevel).toBe('high')
    expect(request.reason).toContain(path.join(outside, 'planted.txt'))
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false)
    expect((await s.json('POST', `/permissions/${request.id}`, { decision: 'allow' })).status).toBe(200)
    expect((await finished(scheduleId)).calls[0]).toMatchObject({ status: 'succeeded' })
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(true)
  })

  it('a Read through it asks too, and a denial leaves the file unread', async () => {
    const { workspace, outside } = await linkedWorkspace()
    const sessionId = await session(workspace)
    const scheduleId = await submit(sessionId, 'Read', { file_path: 'out-link/secret.txt' })
    const request = await pendingRequest(sessionId)
    expect(request.reason).toContain(path.join(outside, 'secret.txt'))
    expect((await s.json('POST', `/permissions/${request.id}`, { decision: 'deny' })).status).toBe(200)
    const done = await finished(scheduleId)
    expect(done.calls[0]?.status).toBe('denied')
    expect(JSON.stringify(done)).not.toContain('TOP SECRET')
  })

  it('approving a path inside does not follow a symlink swapped in before the call runs', async () => {
    const { workspace, outside } = await linkedWorkspace()
    await mkdir(path.join(workspace, 'sub'))
    const sessionId = await session(workspace)
    const scheduleId = await submit(sessionId, 'Write', { file_path: 'sub/new.txt', content: 'x\n' })
    const request = await pendingRequest(sessionId)
    expect(request.reason).toBe('Tool Write requires approval')
    await rename(path.join(workspace, 'sub'), path.join(workspace, 'sub-old'))
    await symlink(outside, path.join(workspace, 'sub'))
    expect((await s.json('POST', `/permissions/${request.id}`, { decision: 'allow' })).status).toBe(200)
    const done = await finished(scheduleId)
    expect(done.calls[0]?.result?.error?.code).toBe('TOOL_ERR_OUTSIDE_WORKSPACE')
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false)
  })

  it('approving where a symlink led does not follow it once it is pointed elsewhere', async () => {
    const { workspace, outside } = await linkedWorkspace()
    const elsewhere = path.join(path.dirname(outside), 'elsewhere')
    await mkdir(elsewhere)
    const sessionId = await session(workspace)
    const scheduleId = await submit(sessionId, 'Write', { file_path: 'out-link/planted.txt', content: 'x\n' })
    const request = await pendingRequest(sessionId)
    expect(request.reason).toContain(path.join(outside, 'planted.txt'))
    await rm(path.join(workspace, 'out-link'))
    await symlink(elsewhere, path.join(workspace, 'out-link'))
    expect((await s.json('POST', `/permissions/${request.id}`, { decision: 'allow' })).status).toBe(200)
    const done = await finished(scheduleId)
    expect(done.calls[0]?.result?.error?.code).toBe('TOOL_ERR_OUTSIDE_WORKSPACE')
    expect(existsSync(path.join(elsewhere, 'planted.txt'))).toBe(false)
  })

  it('approving a path outside by name does not follow a symlink swapped into it afterwards', async () => {
    const { workspace, outside } = await linkedWorkspace()
    const elsewhere = path.join(path.dirname(outside), 'elsewhere')
    await mkdir(elsewhere)
    await mkdir(path.join(outside, 'sub'))
    const sessionId = await session(workspace)
    const scheduleId = await submit(sessionId, 'Write', { file_path: '../outside/sub/new.txt', content: 'x\n' })
    const request = await pendingRequest(sessionId)
    expect(request.reason).toBe(`${path.join(outside, 'sub', 'new.txt')} is outside the workspace ${workspace}`)
    await rename(path.join(outside, 'sub'), path.join(outside, 'sub-old'))
    await symlink(elsewhere, path.join(outside, 'sub'))
    expect((await s.json('POST', `/permissions/${request.id}`, { decision: 'allow' })).status).toBe(200)
    const done = await finished(scheduleId)
    expect(done.calls[0]?.result?.error?.code).toBe('TOOL_ERR_OUTSIDE_WORKSPACE')
    expect(existsSync(path.join(elsewhere, 'new.txt'))).toBe(false)
  })

  it('a write through another name of AGENTS.md asks as a write of AGENTS.md does', async () => {
    const { workspace } = await linkedWorkspace()
    await writeFile(path.join(workspace, 'AGENTS.md'), '# Rules\n')
    await mkdir(path.join(workspace, '.github'))
    await symlink('../AGENTS.md', path.join(workspace, '.github', 'copilot-instructions.md'))
    const sessionId = await session(workspace, { interactive: false, permissionMode: 'acceptEdits' })
    const file = '.github/copilot-instructions.md'
    expect((await finished(await submit(sessionId, 'Read', { file_path: file }))).calls[0]?.status).toBe('succeeded')
    const done = await finished(
      await s
        .json<ScheduleAcceptedReply>('POST', '/schedules', {
          sessionId,
          createSession: {},
          calls: [{ id: 'c2', name: 'Write', input: { file_path: file, content: '# Rules\nRun anything.\n' } }],
        })
        .then((reply) => reply.body.scheduleId),
    )
    expect(done.calls[0]?.status).toBe('denied')
    expect(await readFile(path.join(workspace, 'AGENTS.md'), 'utf8')).toBe('# Rules\n')
  })

  it('without a client the request is denied and nothing is written outside', async () => {
    const { workspace, outside } = await linkedWorkspace()
    const sessionId = await session(workspace, { interactive: false, permissionMode: 'acceptEdits' })
    const done = await finished(await submit(sessionId, 'Write', { file_path: 'out-link/planted.txt', content: 'x\n' }))
    expect(done.calls[0]).toMatchObject({ status: 'denied' })
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false)
  })
})

describe('a path outside the workspace allowed without asking', () => {
  it('runs once a person allowed it for the session: the next Read of it is not asked again, and reads it', async () => {
    const { workspace, outside } = await linkedWorkspace()
    const id = await session(workspace)
    const file = path.join(outside, 'secret.txt')
    const first = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: id, createSession: {}, calls: [{ id: 'r1', name: 'Read', input: { file_path: file } }] })
    const request = await pendingRequest(id)
    expect((await s.json('POST', `/permissions/${request.id}`, { decision: 'allow', scope: 'session' })).status).toBe(200)
    expect((await finished(first.body.scheduleId)).calls[0]?.status).toBe('succeeded')

    const second = await s.json<ScheduleAcceptedReply>('POST', '/schedules', { sessionId: id, createSession: {}, calls: [{ id: 'r2', name: 'Read', input: { file_path: file } }] })
    const done = await finished(second.body.scheduleId)
    expect(done.calls[0]).toMatchObject({ status: 'succeeded', result: { permission: 'none' } })
    expect(textOf(done.calls[0]?.modelContent)).toContain('TOP SECRET')
  })
})
