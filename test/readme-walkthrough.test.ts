import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinTools } from '../src/tools/builtin.js'
import { startTestServer, type TestServer } from './support/server.js'
import { tempDirSync } from './support/temp-dirs.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** What the README says the block prints, `$WORKSPACE` standing for the scratch workspace. */
function promisedOutput(): string {
  const section = /<!-- walkthrough-output:begin -->\s*```text\n([\s\S]*?)```\s*<!-- walkthrough-output:end -->/.exec(readme)
  if (section === null) throw new Error('README.md has no walkthrough output block')
  return section[1] as string
}

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

  it('R13 runs as written and prints what the README says: the approved Write runs and the Read sees its file', async () => {
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
    const workspace = /File created successfully at: (.*)\/hello\.txt/.exec(run.stdout)?.[1] ?? ''
    expect(workspace.startsWith(cwd)).toBe(true)
    expect(run.stdout.replaceAll(workspace, '$WORKSPACE')).toBe(promisedOutput())
  })
})
