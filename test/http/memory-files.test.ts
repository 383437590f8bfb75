import { readFileSync, existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScheduleReply } from '../../src/contracts/api.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

describe('memory files through the real Write tool', () => {
  let server: TestServer
  let workspace: string
  beforeAll(async () => {
    server = await startTestServer({ tools: builtinTools() })
    workspace = tempDirSync('ws')
    await server.json('POST', '/sessions', { id: 'mem', workspace, interactive: false })
  })
  afterAll(async () => {
    await server.close()
  })

  const write = async (id: string, filePath: string): Promise<ScheduleReply> => {
    const accepted = await server.json<{ scheduleId: string }>('POST', '/schedules', {
      sessionId: 'mem',
      createSession: {},
      calls: [{ id, name: 'Write', input: { file_path: filePath, content: '# remember\n' } }],
    })
    return (await server.json<ScheduleReply>('GET', `/schedules/${accepted.body.scheduleId}?wait=10`)).body
  }

  it('R14 a Markdown file in the memory directory outside the workspace is written without asking', async () => {
    const target = path.join(server.dataDir, 'memory', 'notes.md')
    const done = await write('m1', target)
    expect(done.calls[0]?.status).toBe('succeeded')
    expect(readFileSync(target, 'utf8')).toBe('# remember\n')
  })

  it('R14 any other file outside the workspace asks, and a session without a client is refused', async () => {
    const target = path.join(server.dataDir, 'memory', 'notes.txt')
    const done = await write('m2', target)
    expect(done.calls[0]?.status).toBe('denied')
    expect(existsSync(target)).toBe(false)
  })
})
