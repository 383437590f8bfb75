import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinTools } from '../src/tools/builtin.js'
import { startTestServer, type TestServer } from './support/server.js'
import { tempDirSync } from './support/temp-dirs.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

function walkthrough(): string {
  const section = /<!-- walkthrough:begin -->\s*```bash\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(readme)
  if (section === null) throw new Error('README.md has no walkthrough block')
  return section[1] as string
}

describe('README curl walk-through', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ tools: builtinTools() })
  })
  afterAll(async () => {
    await server.close()
  })

  it('R13 runs as written: the approved Write runs and the Read sees its file', async () => {
    const cwd = tempDirSync('walk')
    // Asynchronous on purpose: the server answers from this same process.
    const run = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', walkthrough()], {
      cwd,
      // The block's `mktemp -d` workspace lands in cwd, removed with it.
      env: { ...process.env, BASE: server.url, TMPDIR: cwd },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(run.stderr).toBe('')
    expect(run.stdout).toMatch(/^w1 succeeded: /m)
    expect(run.stdout).toMatch(/^r1 succeeded: ".*hello/m)
    for (const type of ['ScheduleAccepted', 'PermissionRequested', 'PermissionResolved', 'ToolCallResult', 'ScheduleCompleted']) {
      expect(run.stdout).toContain(`event: ${type}`)
    }
  })
})
