import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionRequestRecord } from '../../src/contracts/api.js'
import type { PermissionRow } from '../../src/contracts/store.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { noteTool } from '../support/permission-tools.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { editTool, readTool } from '../support/tools.js'
import { nodeHook } from '../support/hook-scripts/hooks.js'
import { configFile, SessionApi, type EventData } from '../support/hook-scripts/session-api.js'

const HOOKS = {
  PermissionRequest: [
    { matcher: 'HookApproved', hooks: [{ type: 'command', command: nodeHook({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } }) }] },
    { matcher: 'HookSilent', hooks: [{ type: 'command', command: nodeHook({ additionalContext: 'no opinion' }, { delayMs: 50 }) }] },
  ],
}

const TOOLS: readonly ToolEntry[] = [readTool, editTool, noteTool('HookApproved', 'system').entry, noteTool('HookSilent', 'system').entry]

let s: TestServer
let api: SessionApi

beforeAll(async () => {
  s = await startTestServer({ env: { TOOLEXEC_CONFIG: await configFile({ hooks: HOOKS }) }, tools: TOOLS })
  api = new SessionApi(s)
})

afterAll(async () => {
  await s.close()
})

const resolvedOf = (events: readonly EventData[]): EventData[] => events.filter((event) => event.type === 'PermissionResolved')

/** The stored request of a call, as the store keeps it (a decision on it now is a 409: it is closed). */
async function storedDenial(sessionId: string, callId: string): Promise<PermissionRow | undefined> {
  const events = await api.events(sessionId)
  const permissionId = events.find((event) => event.type === 'PermissionRequested' && event.callId === callId)?.permissionId
  return typeof permissionId === 'string' ? s.runtime.store.approvals.get(permissionId) : undefined
}

describe('headless sessions (interactive: false)', () => {
  it('R17 a call that would ask is denied with No permission client configured, decided by the broker', async () => {
    const sessionId = await api.session({ interactive: false })
    const call = await api.run(sessionId, 'Edit', { file_path: 'a.txt' }, 'headless-edit')
    expect(call).toMatchObject({ status: 'denied', modelContent: 'No permission client configured', result: { permission: 'denied' } })
    const events = await api.events(sessionId, call.scheduleId)
    expect(resolvedOf(events)).toEqual([expect.objectContaining({ decision: 'deny', decidedBy: 'broker', reason: 'No permission client configured' })])
    expect(await storedDenial(sessionId, 'headless-edit')).toMatchObject({ status: 'deny', decidedBy: 'broker', message: 'No permission client configured' })
  })

  it('R17 calls that need no approval still run headless', async () => {
    const sessionId = await api.session({ interactive: false })
    expect(await api.run(sessionId, 'Read', { file_path: 'a.txt' })).toMatchObject({ status: 'succeeded' })
  })

  it('R16 headless, a PermissionRequest hook can still approve', async () => {
    const sessionId = await api.session({ interactive: false })
    const call = await api.run(sessionId, 'HookApproved', {})
    expect(call).toMatchObject({ status: 'succeeded', result: { permission: 'approved' } })
    const events = await api.events(sessionId, call.scheduleId)
    expect(resolvedOf(events)).toEqual([expect.objectContaining({ decision: 'allow', decidedBy: 'hook', reason: 'Allowed by PermissionRequest hook' })])
  })

  it('R17 headless, a hook that does not decide leaves the broker to deny once it has answered', async () => {
    const sessionId = await api.session({ interactive: false })
    const call = await api.run(sessionId, 'HookSilent', {})
    expect(call).toMatchObject({ status: 'denied', modelContent: 'No permission client configured' })
    const events = await api.events(sessionId, call.scheduleId)
    expect(events.map((event) => event.type).filter((type) => type.startsWith('HookRun') || type === 'PermissionResolved')).toEqual(['HookRunStarted', 'HookRunCompleted', 'PermissionResolved'])
  })
})

describe('permissionTimeoutMs', () => {
  it('R18 an unanswered request is denied when the time is up, decidedBy timeout; a late answer is a 409', async () => {
    const sessionId = await api.session({ permissionTimeoutMs: 150 })
    const started = Date.now()
    const call = await api.run(sessionId, 'Edit', { file_path: 'a.txt' }, 'timed-edit')
    expect(Date.now() - started).toBeGreaterThanOrEqual(150)
    expect(call).toMatchObject({ status: 'denied', modelContent: 'Permission request timed out after 150ms' })
    const events = await api.events(sessionId, call.scheduleId)
    expect(resolvedOf(events)).toEqual([expect.objectContaining({ decision: 'deny', decidedBy: 'timeout' })])
    const permissionId = String(events.find((event) => event.type === 'PermissionRequested')?.permissionId)
    const late = await api.answer(permissionId, { decision: 'allow' })
    expect(late.status).toBe(409)
    expect(late.body.error?.details).toEqual({ decision: 'deny', decidedBy: 'timeout' })
  })

  it('R18 without permissionTimeoutMs the request waits for its answer', async () => {
    const sessionId = await api.session()
    const scheduleId = await api.accept(sessionId, [{ id: 'patient', name: 'Edit', input: { file_path: 'a.txt' } }])
    const request = await api.pending(sessionId)
    await new Promise((resolve) => setTimeout(resolve, 400))
    const [still] = (await s.json<{ requests: PermissionRequestRecord[] }>('GET', `/permissions?sessionId=${sessionId}&status=pending`)).body.requests
    expect(still?.id).toBe(request.id)
    expect((await api.answer(request.id, { decision: 'allow' })).status).toBe(200)
    expect((await api.finished(scheduleId)).calls[0]?.status).toBe('succeeded')
  })
})
