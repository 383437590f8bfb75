import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, readSync } from 'node:fs'
import { mkdir, open, readdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { PermissionBroker, PermissionService, TurnContext } from '../../src/contracts/ports.js'
import type { ToolExecutionResult } from '../../src/contracts/result.js'
import { createPermissionTicket } from '../../src/permissions/permission-ticket.js'
import { FsArtifactStore } from '../../src/storage/fs-artifact-store.js'
import { createEditTool } from '../../src/tools/edit/index.js'
import { openWalkedFile, walkFiles } from '../../src/tools/glob/file-walker.js'
import { createGlobTool } from '../../src/tools/glob/index.js'
import { createGrepTool } from '../../src/tools/grep/index.js'
import { createReadTool } from '../../src/tools/read/index.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { InMemoryFileStateStore } from '../../src/tools/services.js'
import { createWriteTool } from '../../src/tools/write/index.js'
import { displayPath, findOutsidePath, realPathOfDescriptor, resolveToolPath, withAbsoluteFilePath, type PathGuard } from '../../src/tools/workspace.js'
import { tempDir } from '../support/permission-tools.js'
import { eventually, groupMembers } from '../support/processes.js'
import { createTestExecutor } from '../support/executor.js'

const SECRET = 'TOP SECRET outside the workspace'
const OUTSIDE_REFUSED = /^<tool_use_error>Access to .* was refused: it is outside the workspace /

/** A person who approves every request at once. */
const approvingBroker: PermissionBroker = {
  interactive: true,
  open(request) {
    const ticket = createPermissionTicket(request)
    ticket.settle({ decision: 'allow', decidedBy: 'client' })
    return ticket
  },
}
const askEverything: PermissionService = { evaluate: () => ({ behavior: 'ask', reason: 'asked for the test' }) }

const swappers: ChildProcess[] = []
/**
 * Killed and gone, the whole group: a swapper's `ln` or `mv` still renaming in the workspace
 * after its bash died would race the folder's removal.
 */
async function stopSwappers(): Promise<void> {
  const groups = swappers.splice(0).flatMap((child) => (child.pid === undefined ? [] : [child.pid]))
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  for (const pgid of groups) expect(await eventually(() => groupMembers(pgid).length === 0, 5_000), `swapper group ${pgid} still runs`).toBe(true)
}
afterEach(stopSwappers)

async function harness(options: { approve?: boolean } = {}) {
  const root = await realpath(await tempDir('workspace'))
  const workspace = path.join(root, 'ws')
  const outside = path.join(root, 'outside')
  await mkdir(workspace)
  await mkdir(outside)
  await writeFile(path.join(outside, 'secret.txt'), SECRET)
  await writeFile(path.join(workspace, 'inside.txt'), 'inside text\n')
  await symlink('/etc', path.join(workspace, 'etc-link'))
  await symlink('/etc/passwd', path.join(workspace, 'passwd-link'))
  await symlink(outside, path.join(workspace, 'out-link'))
  await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'secret-link'))
  const executor = createTestExecutor({
    registry: new InMemoryToolRegistry([createReadTool(), createWriteTool(), createEditTool(), createGlobTool(), createGrepTool()]),
    artifacts: new FsArtifactStore({ dataDir: path.join(root, 'data') }),
    services: { fileState: new InMemoryFileStateStore() },
    ...(options.approve === true ? { permissions: askEverything, broker: approvingBroker } : null),
  })
  let next = 0
  const call = (name: string, input: unknown, turn: Partial<TurnContext> = {}): Promise<ToolExecutionResult> =>
    executor.execute({ id: `c${++next}`, name, input }, { sessionId: 's1', workspace, permissionMode: 'acceptEdits', ...turn })
  const outsideUntouched = async (): Promise<void> => {
    expect(await readdir(outside)).toEqual(['secret.txt'])
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET)
  }
  /** A real process that keeps swapping `name` between two symlink targets, atomically. */
  const swapLink = (name: string, first: string, second: string): void => {
    const script = `while :; do ln -sfn '${first}' .a; mv -Tf .a '${name}'; ln -sfn '${second}' .b; mv -Tf .b '${name}'; done`
    swappers.push(spawn('bash', ['-c', script], { cwd: workspace, stdio: 'ignore', detached: true }))
  }
  return { root, workspace, outside, call, outsideUntouched, swapLink }
}

describe('workspace confinement', () => {
  it.each<[string, string, string]>([
    ['a relative path', 'src/a.ts', '/work/ws/src/a.ts'],
    ['dot segments', './src/../b.ts', '/work/ws/b.ts'],
    ['a climb out', '../other/c.ts', '/work/other/c.ts'],
    ['an absolute path', '/etc//passwd', '/etc/passwd'],
  ])('R13 resolves %s against the workspace to one absolute path', (_name, input, expected) => {
    expect(resolveToolPath(input, '/work/ws')).toBe(expected)
    expect(withAbsoluteFilePath({ file_path: input, limit: 3 }, { sessionId: 's', callId: 'c', workspace: '/work/ws' })).toEqual({ file_path: expected, limit: 3 })
  })

  it('R13 shows paths inside the workspace relative to it, others absolute', () => {
    expect([displayPath('/ws/a/b.ts', '/ws'), displayPath('/ws', '/ws'), displayPath('/other/x', '/ws'), displayPath('/x', undefined)]).toEqual(['a/b.ts', '.', '/other/x', '/x'])
  })

  it('R14 findOutsidePath names the outside path of an input for the permission layer', async () => {
    const { workspace, outside } = await harness()
    const cases: [unknown, string | undefined][] = [
      [{ file_path: 'inside.txt' }, undefined],
      [{ file_path: 'not/yet/created.txt' }, undefined],
      [{ pattern: '*', path: '.' }, undefined],
      [{ file_path: '../outside/secret.txt' }, path.join(outside, 'secret.txt')],
      [{ file_path: '/etc/hosts' }, '/etc/hosts'],
      [{ file_path: 'passwd-link' }, '/etc/passwd'],
      [{ pattern: 'x', path: 'out-link/deeper' }, path.join(outside, 'deeper')],
      ['not an object', undefined],
    ]
    for (const [input, realPath] of cases) {
      const found = await findOutsidePath(input, workspace)
      expect([input, found?.realPath]).toEqual([input, realPath])
    }
    expect(await findOutsidePath({ file_path: 'passwd-link' }, workspace)).toEqual({ path: path.join(workspace, 'passwd-link'), realPath: '/etc/passwd' })
    expect(await findOutsidePath({ file_path: '/tmp/x' }, undefined)).toEqual({ path: '/tmp/x', realPath: await realpath('/tmp').then((tmp) => path.join(tmp, 'x')) })
  })

  it.each<[string, string, Record<string, unknown>]>([
    ['Read ../', 'Read', { file_path: '../outside/secret.txt' }],
    ['Read an absolute path elsewhere', 'Read', { file_path: '/etc/passwd' }],
    ['Read a symlink to /etc/passwd', 'Read', { file_path: 'passwd-link' }],
    ['Read through a symlink to /etc', 'Read', { file_path: 'etc-link/passwd' }],
    ['Read a symlink to an outside file', 'Read', { file_path: 'secret-link' }],
    ['Write ../', 'Write', { file_path: '../outside/new.txt', content: 'x' }],
    ['Write through a symlinked directory', 'Write', { file_path: 'out-link/new.txt', content: 'x' }],
    ['Write over a symlink to an outside file', 'Write', { file_path: 'secret-link', content: 'x' }],
    ['Edit an absolute path elsewhere', 'Edit', { file_path: '/etc/passwd', old_string: 'root', new_string: 'x' }],
    ['Edit a symlink to an outside file', 'Edit', { file_path: 'secret-link', old_string: 'TOP', new_string: 'x' }],
    ['Glob ../', 'Glob', { pattern: '*', path: '../outside' }],
    ['Glob an absolute pattern elsewhere', 'Glob', { pattern: '/etc/*' }],
    ['Glob through a symlink to /etc', 'Glob', { pattern: '*', path: 'etc-link' }],
    ['Grep an absolute path elsewhere', 'Grep', { pattern: 'root', path: '/etc' }],
    ['Grep through a symlinked directory', 'Grep', { pattern: 'SECRET', path: 'out-link' }],
    ['Grep a symlink to /etc/passwd', 'Grep', { pattern: 'root', path: 'passwd-link' }],
  ])('R13 refuses an escape attempt: %s', async (_name, tool, input) => {
    const { call, outsideUntouched } = await harness()
    const result = await call(tool, input)
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe('TOOL_ERR_OUTSIDE_WORKSPACE')
    expect(result.modelContent).toMatch(OUTSIDE_REFUSED)
    await outsideUntouched()
  })

  it('R13 bypassPermissions does not lift the confinement: only an approval of the call does', async () => {
    const { call } = await harness()
    const result = await call('Read', { file_path: '../outside/secret.txt' }, { permissionMode: 'bypassPermissions' })
    expect(result.permission).toBe('none')
    expect(result.modelContent).toMatch(OUTSIDE_REFUSED)
  })

  it('R13 a search of the whole workspace skips files that lead outside', async () => {
    const { call } = await harness()
    const grep = await call('Grep', { pattern: 'SECRET|root:|inside', output_mode: 'content' })
    expect(grep.modelContent).toBe('inside.txt:1:inside text')
    const glob = await call('Glob', { pattern: '**/*' })
    expect(glob.modelContent).toBe('inside.txt\npasswd-link\nsecret-link')
  })

  it('R16 an approved call may use the outside path the person approved', async () => {
    const { call, outside } = await harness({ approve: true })
    const read = await call('Read', { file_path: '../outside/secret.txt' })
    expect([read.permission, read.modelContent]).toEqual(['approved', `     1\t${SECRET}`])
    const write = await call('Write', { file_path: '../outside/approved.txt', content: 'ok\n' })
    expect(write.status).toBe('succeeded')
    expect(await readFile(path.join(outside, 'approved.txt'), 'utf8')).toBe('ok\n')
    const grep = await call('Grep', { pattern: 'SECRET', path: outside })
    expect(grep.modelContent).toBe(`Found 1 file\n${path.join(outside, 'secret.txt')}`)
  })

  it('R13 tools without a workspace refuse to guess one', async () => {
    const { call } = await harness()
    const result = await call('Read', { file_path: '/etc/hostname' }, { workspace: undefined })
    expect(result.modelContent).toBe('<tool_use_error>No workspace is set for this session; file tools only work inside a workspace.</tool_use_error>')
  })

  it('R13 Read never returns outside bytes while a process swaps a symlink between inside and outside', async () => {
    const { call, swapLink, outside, workspace } = await harness()
    await symlink('inside.txt', path.join(workspace, 'target'))
    swapLink('target', 'inside.txt', path.join(outside, 'secret.txt'))
    const outcomes = new Set<string>()
    for (let round = 0; round < 300; round++) {
      const result = await call('Read', { file_path: 'target' })
      const text = JSON.stringify(result.modelContent)
      expect(text).not.toContain('TOP SECRET')
      outcomes.add(result.status === 'succeeded' ? 'read inside' : String(result.error?.code))
    }
    for (const outcome of outcomes) expect(['read inside', 'TOOL_ERR_OUTSIDE_WORKSPACE']).toContain(outcome)
    expect(outcomes.has('read inside')).toBe(true)
  })

  it('R13 Write never lands outside while a process swaps a directory symlink between inside and outside', async () => {
    const { call, swapLink, outside, workspace, outsideUntouched } = await harness()
    await mkdir(path.join(workspace, 'real-sub'))
    await symlink('real-sub', path.join(workspace, 'sub'))
    swapLink('sub', 'real-sub', outside)
    let written = 0
    for (let round = 0; round < 200; round++) {
      const result = await call('Write', { file_path: `sub/new-${round}.txt`, content: 'x' })
      if (result.status === 'succeeded') written++
      else expect(result.error?.code).toMatch(/^TOOL_ERR_(OUTSIDE_WORKSPACE|FS_ENOENT)$/)
    }
    await stopSwappers()
    await outsideUntouched()
    expect(written).toBeGreaterThan(0)
    expect((await readdir(path.join(workspace, 'real-sub'))).length).toBe(written)
  })

  it.each([true, false])('R13 a directory swapped for a symlink to outside after the walk began is not entered (pinned: %s)', async (pin) => {
    const { workspace, outside } = await harness()
    await mkdir(path.join(workspace, 'a'))
    await mkdir(path.join(workspace, 'z'))
    await writeFile(path.join(workspace, 'a', 'one.txt'), '1')
    await writeFile(path.join(workspace, 'z', 'two.txt'), '2')
    const guard: PathGuard = { roots: [workspace], workspace }
    const walk = walkFiles({ root: workspace, guard, ignoreBase: workspace, pin })
    const first = walk.next()
    expect(first.value).toMatchObject({ relative: 'a/one.txt' })
    await rename(path.join(workspace, 'z'), path.join(workspace, 'z-old'))
    await symlink(outside, path.join(workspace, 'z'))
    const rest = [...walk].map((entry) => entry.relative)
    expect(rest).toEqual(['inside.txt', 'passwd-link', 'secret-link'])
  })

  it.each([true, false])('R13 a walked file swapped for a symlink to outside before it is opened is not read (pinned: %s)', async (pin) => {
    const { workspace, outside } = await harness()
    const guard: PathGuard = { roots: [workspace], workspace }
    for (const entry of walkFiles({ root: workspace, guard, ignoreBase: workspace, pin })) {
      if (entry.relative !== 'inside.txt') continue
      await rm(entry.absolute)
      await symlink(path.join(outside, 'secret.txt'), entry.absolute)
      expect(openWalkedFile(entry, guard)).toBeUndefined()
    }
    for (const entry of walkFiles({ root: workspace, guard, ignoreBase: workspace, pin })) {
      const fd = openWalkedFile(entry, guard)
      if (fd === undefined) continue
      const bytes = Buffer.alloc(64)
      const count = readSync(fd, bytes, 0, 64, 0)
      closeSync(fd)
      expect(bytes.subarray(0, count).toString()).not.toContain('TOP SECRET')
    }
  })

  it('R13 the descriptor check sees where an opened symlink really leads', async () => {
    const { workspace, outside } = await harness()
    const handle = await open(path.join(workspace, 'secret-link'), 'r')
    try {
      expect(await realPathOfDescriptor(handle.fd, path.join(workspace, 'secret-link'))).toBe(path.join(outside, 'secret.txt'))
    } finally {
      await handle.close()
    }
  })
})
