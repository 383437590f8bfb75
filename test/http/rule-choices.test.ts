/**
 * What an approval of a Bash command offers and adds: the project rules of each choice (this
 * command, its prefix, each part), the one chosen stored as asked and no other, an honest risk
 * label, and where the command would run.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionRequestRecord, ProjectRule } from '../../src/contracts/api.js'
import type { CommandPreview } from '../../src/contracts/tool-entry.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { SessionApi } from '../support/hook-scripts/session-api.js'
import { tempDir } from '../support/permission-tools.js'
import { startTestServer, type TestServer } from '../support/server.js'

let s: TestServer
let api: SessionApi

beforeAll(async () => {
  s = await startTestServer({ tools: [createBashTool()] })
  api = new SessionApi(s)
})

afterAll(async () => {
  await s.close()
})

async function asked(command: string): Promise<{ sessionId: string; workspace: string; scheduleId: string; request: PermissionRequestRecord }> {
  const workspace = await tempDir('choices')
  const sessionId = await api.session({ workspace })
  const scheduleId = await api.accept(sessionId, [{ id: 'c1', name: 'Bash', input: { command } }])
  return { sessionId, workspace, scheduleId, request: await api.pending(sessionId) }
}

const rulesOf = async (workspace: string): Promise<string[]> =>
  (await s.json<{ rules: ProjectRule[] }>('GET', '/permissions/rules')).body.rules.filter((rule) => rule.workspace === workspace).map((rule) => rule.rule)

describe('the choices of a Bash approval', () => {
  it('a touch && ls asks at medium risk, saying what the classifier found, and shows where it runs', async () => {
    const { request, workspace } = await asked('touch made-by-bash.txt && ls -la')
    expect(request).toMatchObject({ riskLevel: 'medium', reason: 'Tool Bash requires approval: touch is not a known read-only program' })
    const preview = (request.preview as { command: CommandPreview }).command
    if (s.runtime.sandbox.confined) {
      expect(preview).toMatchObject({ cwd: workspace, confined: true, writable: [workspace], network: false })
      expect(preview.protected).toEqual(expect.arrayContaining(['AGENTS.md', '.git/hooks']))
    } else {
      expect(preview).toMatchObject({ cwd: workspace, confined: false, writable: [], network: true })
      expect(typeof preview.reason).toBe('string')
    }
    await api.answer(request.id, { decision: 'deny' })
  })

  it('offers the exact command, a prefix rule for each part and each part exactly, in the listing and the event', async () => {
    const { request, sessionId, scheduleId } = await asked('git status && rm -rf ./tmp')
    const choices = [
      { kind: 'exact', rules: ['Bash(git status && rm -rf ./tmp)'] },
      { kind: 'prefix', rules: ['Bash(git status *)', 'Bash(rm *)'] },
      { kind: 'segments', rules: ['Bash(git status)', 'Bash(rm -rf ./tmp)'] },
    ]
    expect(request.suggestedRules).toEqual(choices)
    expect((await api.answer(request.id, { decision: 'deny' })).status).toBe(200)
    const event = (await api.events(sessionId, scheduleId)).find((data) => data.type === 'PermissionRequested')
    expect(event?.suggestedRules).toEqual(choices)
  })

  it('adds the prefix rules a person chose; a later command they cover runs unasked', async () => {
    const { request, workspace, scheduleId } = await asked('touch made-by-bash.txt && ls -la')
    const prefix = request.suggestedRules?.find((choice) => choice.kind === 'prefix')
    expect(prefix?.rules).toEqual(['Bash(touch *)', 'Bash(ls *)'])
    expect((await api.answer(request.id, { decision: 'allow', scope: 'project', rules: prefix?.rules })).status).toBe(200)
    expect((await api.finished(scheduleId)).calls[0]?.status).toBe('succeeded')
    expect((await rulesOf(workspace)).sort()).toEqual(['Bash(ls *)', 'Bash(touch *)'])
    const sessionId = await api.session({ workspace })
    expect(await api.run(sessionId, 'Bash', { command: 'touch other.txt && ls' })).toMatchObject({ status: 'succeeded' })
    expect(existsSync(path.join(workspace, 'other.txt'))).toBe(true)
  })

  it('refuses rules that were not offered, or without scope project, with 400 API_ERR_RULE_NOT_OFFERED; the request stays open', async () => {
    const { request, workspace } = await asked('git status && rm -rf ./tmp')
    for (const body of [
      { decision: 'allow', scope: 'project', rules: ['Bash(git status *)'] },
      { decision: 'allow', scope: 'project', rules: ['Bash(rm *)', 'Bash(git status *)'] },
      { decision: 'allow', scope: 'session', rules: ['Bash(git status && rm -rf ./tmp)'] },
    ]) {
      const reply = await api.answer(request.id, body)
      expect(reply.status).toBe(400)
      expect(reply.body.error?.code).toBe('API_ERR_RULE_NOT_OFFERED')
    }
    expect((await api.answer(request.id, { decision: 'deny' })).status).toBe(200)
    expect(await rulesOf(workspace)).toEqual([])
  })

  it('without rules, a project decision adds the exact command, as before', async () => {
    const { request, workspace, scheduleId } = await asked('mkdir -p build')
    expect((await api.answer(request.id, { decision: 'allow', scope: 'project' })).status).toBe(200)
    await api.finished(scheduleId)
    expect(await rulesOf(workspace)).toEqual(['Bash(mkdir -p build)'])
  })
})
