/**
 * Bash under attack, through the real HTTP server: commands a parser takes for read-only but
 * whose shell reaches outside the workspace (braces, globs, symlinks, `cd`, sed's r/R/w/e,
 * `-L`, /proc links, /dev/tcp) run unasked in the default mode and still cannot read an outside
 * or home secret, write, or reach the network; approved commands cannot write the files that
 * steer the agent; and where no sandbox runs, the same commands ask.
 *
 * Every row asserts both that the secret is absent and that the command really ran (its
 * exit code and what it printed), so a row that reached nothing because it never ran fails.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionService } from '../../src/contracts/ports.js'
import { probeSandbox } from '../../src/tools/bash/sandbox-probe.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { hiddenFromParser, runBashCall, type BashRun } from '../support/bash-calls.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'
import { containing } from '../support/matchers.js'

const MARK = randomBytes(6).toString('hex')
const OUTSIDE = `OUTSIDE-SECRET-${MARK}`
const SIBLING = `SIBLING-SECRET-${MARK}`
const HOME_SECRET = `HOME-SECRET-${MARK}`
const SECRETS = [OUTSIDE, SIBLING, HOME_SECRET]

let root: string
let workspace: string
let outsideFile: string
let home: string
let savedHome: string | undefined
let listener: Server
let port: number
let hits = 0

beforeAll(async () => {
  root = tempDirSync('attack')
  workspace = path.join(root, 'ws')
  home = path.join(root, 'home')
  for (const dir of [workspace, home, path.join(root, 'outside'), path.join(root, 'sec'), path.join(workspace, 'sub'), path.join(workspace, '.git', 'hooks'), path.join(workspace, '.toolexec')])
    mkdirSync(dir, { recursive: true })
  outsideFile = path.join(root, 'outside', 'secret.txt')
  writeFileSync(outsideFile, `${OUTSIDE}\n`)
  writeFileSync(path.join(root, 'sec', 'secret.txt'), `${SIBLING}\n`)
  writeFileSync(path.join(home, 'secret-home.txt'), `${HOME_SECRET}\n`)
  writeFileSync(path.join(workspace, 'in.txt'), 'inside line\n')
  writeFileSync(path.join(workspace, 'sub', 'note.txt'), 'a note\n')
  writeFileSync(path.join(workspace, 'AGENTS.md'), 'steer\n')
  writeFileSync(path.join(workspace, 'CLAUDE.md'), 'steer\n')
  writeFileSync(path.join(workspace, '.git', 'config'), '[core]\n')
  writeFileSync(path.join(workspace, '.toolexec', 'config.json'), '{}\n')
  // Links that lead out: a file, a directory (reached by `*/secret.txt`), and through
  // /proc/self/root the directory that holds the secrets (followed by `grep -R` and `find -L`;
  // it leads there rather than to / so that following it stays quick).
  symlinkSync(outsideFile, path.join(workspace, 'lnk'))
  symlinkSync(path.join(root, 'outside'), path.join(workspace, 'dir'))
  symlinkSync(`/proc/self/root${root}`, path.join(workspace, 'rootlink'))
  savedHome = process.env.HOME
  process.env.HOME = home
  listener = createServer((_, reply) => {
    hits++
    reply.end(`NETWORK-${MARK}`)
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  port = (listener.address() as AddressInfo).port
})

afterAll(async () => {
  process.env.HOME = savedHome
  await new Promise((resolve) => listener.close(resolve))
  rmSync(root, { recursive: true, force: true })
})

/** The rows name the test's real paths through placeholders. */
function withPaths(command: string): string {
  return command.replaceAll('/outside/secret', outsideFile).replaceAll('/abs/file', outsideFile).replaceAll('PORT', String(port))
}

function expectNoSecret(ran: BashRun): void {
  for (const secret of SECRETS) expect(ran.output).not.toContain(secret)
  expect(ran.output).not.toMatch(/^root:[^:]*:/m)
  expect(ran.output).not.toContain(`NETWORK-${MARK}`)
}

/**
 * [command, exit code, what its output must show it did, where it runs]: `unasked` rows run in
 * the default mode with the real classifier, which lets them run without asking; `kernel`
 * rows name their way out plainly enough for the permission rules to ask, so they run where
 * the classifier is fooled (below) to show that the kernel holds even then.
 */
type Attack = readonly [string, number, RegExp, 'unasked' | 'kernel']

/** The commands of the report, each run unasked in the default mode before. */
const REPORTED: Attack[] = [
  ['cat {/outside/secret,}', 1, /No such file/, 'unasked'],
  ['cat {..,x}/sec/secret.txt', 1, /No such file/, 'unasked'],
  ['cat */secret.txt', 1, /No such file/, 'unasked'],
  ['cat l?k', 1, /No such file/, 'unasked'],
  ['sed -n "1r /abs/file" in.txt', 0, /^$/, 'unasked'],
  ['grep -R SECRET .', 2, /recursive directory loop/, 'unasked'],
  ['find -L .', 1, /^(?=[\s\S]*\.\/in\.txt\n)(?=[\s\S]*File system loop detected)/, 'unasked'],
  ['cd && cat secret-home.txt', 1, /secret-home\.txt: No such file/, 'unasked'],
  ['cd - && ls', 1, /OLDPWD not set/, 'unasked'],
]

/** More of the same families. */
const MORE: Attack[] = [
  ['cat {lnk,in.txt}', 1, /^(?=[\s\S]*inside line)(?=[\s\S]*lnk: No such file)/, 'unasked'],
  ['cat {.,..}/sec/secret.txt', 1, /No such file/, 'unasked'],
  ['cat ./*/secret*', 1, /No such file/, 'unasked'],
  ['cat [l]nk', 1, /No such file/, 'unasked'],
  ['cat l*k', 1, /No such file/, 'unasked'],
  ['wc -c l?k in.txt', 1, /12 in\.txt/, 'unasked'],
  ["cat $'\\x2e\\x2e'/sec/secret.txt", 1, /No such file/, 'unasked'],
  ['sed -n "1R /etc/shadow" in.txt', 0, /^$/, 'unasked'],
  ['sed "1r {/outside/secret,}" in.txt', 0, /^inside line\n?$/, 'unasked'],
  ['tail -n 3 {..,.}/home/secret-home.txt', 1, /No such file/, 'unasked'],
  ['grep --dereference-recursive SECRET .', 2, /recursive directory loop/, 'unasked'],
  ['grep -R -l inside .', 2, /\.\/in\.txt/, 'unasked'],
  ['find -L . -name secret.txt', 1, /File system loop detected/, 'unasked'],
  ['find . -follow -name secret-home.txt', 1, /File system loop detected/, 'unasked'],
  ['CDPATH=.. cd sec && cat secret.txt', 1, /cd: sec: No such file/, 'kernel'],
  ["cat $'lnk'", 1, /No such file/, 'kernel'],
  ['sed -n "1r lnk" in.txt', 0, /^$/, 'kernel'],
  ['cat dir/*', 1, /No such file/, 'kernel'],
  ['head -n 5 {/etc/shadow,in.txt}', 1, /^(?=[\s\S]*inside line)(?=[\s\S]*shadow' for reading: Permission denied)/, 'kernel'],
  ['cat ../sec/secret.txt', 1, /No such file/, 'kernel'],
  ['cat /abs/file', 1, /No such file/, 'kernel'],
  ['cat /etc/shadow', 1, /Permission denied/, 'kernel'],
  ['cat /etc/gshadow', 1, /Permission denied/, 'kernel'],
  ['ls -la dir/', 2, /No such file/, 'kernel'],
  ['ls -L rootlink/', 0, /^ws\n?$/, 'kernel'],
  ['cat rootlink/outside/secret.txt', 1, /No such file/, 'kernel'],
  ['grep -r SECRET rootlink/', 1, /^$/, 'kernel'],
  ['cat /proc/1/root/etc/shadow', 1, /Permission denied/, 'kernel'],
  ['cat /proc/1/root/abs/file', 1, /No such file/, 'kernel'],
  ['cat /proc/self/cwd/in.txt', 0, /inside line/, 'kernel'],
  ['ls /proc/self/root/', 0, /usr/, 'kernel'],
  ['ls /proc/1/cwd/', 0, /in\.txt/, 'kernel'],
  ['cd .. && ls', 0, /^ws\n?$/, 'kernel'],
  ['ls ..', 0, /^ws\n?$/, 'kernel'],
  ['cd ~ && ls -a', 0, /^\.\n\.\.\n?$/, 'kernel'],
  ['cd / && ls', 0, /usr/, 'kernel'],
  ['cd ~/ && cat secret-home.txt', 1, /No such file/, 'kernel'],
  ['head -c 100 ~/secret-home.txt', 1, /No such file/, 'kernel'],
  ['cat /home/secret-home.txt', 1, /No such file/, 'kernel'],
  ['cat < /dev/tcp/127.0.0.1/PORT', 1, /Connection refused|Network is unreachable/, 'kernel'],
  ['exec 3<>/dev/tcp/127.0.0.1/PORT; echo sent >&3', 1, /Connection refused|Network is unreachable/, 'kernel'],
]

const ATTACKS = [...REPORTED, ...MORE]

const run = (server: TestServer, sessionId: string, command: string): Promise<BashRun> => runBashCall(server.json, sessionId, command)

describe('confined (the default where bubblewrap runs)', () => {
  let server: TestServer

  beforeAll(async () => {
    expect(probeSandbox('auto')).toMatchObject({ confined: true })
    server = await startTestServer({ tools: builtinTools() })
    expect((await server.json('POST', '/sessions', { id: 'plain', workspace, interactive: false })).status).toBe(201)
  })

  afterAll(async () => {
    await server.close()
  })

  it('says so in /healthz', async () => {
    const health = await server.json<{ sandbox: { confined: boolean; mode: string } }>('GET', '/healthz')
    expect(health.body.sandbox).toEqual({ confined: true, mode: 'auto' })
  })

  it.each(ATTACKS.filter((row) => row[3] === 'unasked'))('runs %j unasked, and it reads no outside or home secret', async (command, exitCode, shows) => {
    const ran = await run(server, 'plain', withPaths(command))
    expect(ran.status).toBe('succeeded')
    expect(ran.confined).toBe(true)
    expectNoSecret(ran)
    expect(ran.exitCode).toBe(exitCode)
    expect(ran.output).toMatch(shows)
  })
})

/** A classifier that takes everything for read-only: what the kernel holds when a parser errs. */
const FOOLED: PermissionService = { evaluate: () => ({ behavior: 'allow', ruleId: 'mode.readOnly', reason: 'taken for read-only' }) }

/** Writes, and programs started, from a command run unasked. */
const WRITES: (readonly [string, number, RegExp])[] = [
  ['echo owned > owned.txt', 1, /Read-only file system/],
  ['echo owned >> in.txt', 1, /Read-only file system/],
  ['echo owned | tee owned.txt', 1, /Read-only file system/],
  ['sed -i s/inside/owned/ in.txt', 4, /Read-only file system|Permission denied/],
  ['sed -n "1w owned.txt" in.txt', 4, /Read-only file system|couldn't open/],
  ['sed "1e touch owned.txt" in.txt', 0, /Read-only file system/],
  ['touch owned.txt', 1, /Read-only file system/],
  ['rm in.txt', 1, /Read-only file system/],
  ['mv in.txt owned.txt', 1, /Read-only file system/],
  ['cp in.txt owned.txt', 1, /Read-only file system/],
  ['mkdir owned.txt', 1, /Read-only file system/],
  ['ln -s in.txt owned.txt', 1, /Read-only file system/],
  ['echo x > .git/config', 1, /Read-only file system/],
  ['echo x > /usr/owned.txt', 1, /Read-only file system/],
  ['echo x > /etc/owned.txt', 1, /Read-only file system/],
  ['echo x > /owned.txt', 1, /Read-only file system/],
  ['mount -o remount,rw / 2>&1; touch owned.txt', 1, /Read-only file system/],
]

describe('confined, when the classifier is fooled into calling a write read-only', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ tools: builtinTools(), permissions: FOOLED })
    expect((await server.json('POST', '/sessions', { id: 'fooled', workspace, interactive: false })).status).toBe(201)
  })

  afterAll(async () => {
    await server.close()
  })

  it.each(ATTACKS.filter((row) => row[3] === 'kernel'))('runs %j and it reads no outside or home secret, nor reaches the network', async (command, exitCode, shows) => {
    const before = hits
    const ran = await run(server, 'fooled', withPaths(command))
    expect(ran).toMatchObject({ status: 'succeeded', confined: true })
    expectNoSecret(ran)
    expect(ran.exitCode).toBe(exitCode)
    expect(ran.output).toMatch(shows)
    expect(hits).toBe(before)
  })

  it.each(WRITES)('runs %j with the workspace read-only: nothing is written, nothing reached', async (template, exitCode, shows) => {
    const before = hits
    const ran = await run(server, 'fooled', withPaths(template))
    expect(ran).toMatchObject({ status: 'succeeded', confined: true })
    expect(ran.exitCode).toBe(exitCode)
    expect(ran.output).toMatch(shows)
    expect(existsSync(path.join(workspace, 'owned.txt'))).toBe(false)
    expect(readFileSync(path.join(workspace, 'in.txt'), 'utf8')).toBe('inside line\n')
    expect(readFileSync(path.join(workspace, '.git', 'config'), 'utf8')).toBe('[core]\n')
    expect(hits).toBe(before)
  })

  it("keeps what a command writes to /tmp in its own /tmp, not the host's", async () => {
    const leak = `/tmp/toolexec-leak-${MARK}`
    const ran = await run(server, 'fooled', `echo leaked > ${leak} && cat ${leak}`)
    expect(ran).toMatchObject({ status: 'succeeded', exitCode: 0 })
    expect(ran.output).toMatch(/^leaked\n?$/)
    expect(existsSync(leak)).toBe(false)
  })
})

describe('confined, approved: the workspace is writable but the files that steer the agent are not', () => {
  let server: TestServer

  beforeAll(async () => {
    server = await startTestServer({ tools: builtinTools() })
    expect((await server.json('POST', '/sessions', { id: 'approved', workspace, permissionMode: 'bypassPermissions' })).status).toBe(201)
  })

  afterAll(async () => {
    rmSync(path.join(workspace, 'written.txt'), { force: true })
    await server.close()
  })

  it.each([
    ['echo x >> AGENTS.md', 'AGENTS.md', 'steer\n'],
    ['echo x > CLAUDE.md', 'CLAUDE.md', 'steer\n'],
    ['printf "[core]\\n\\tfsmonitor = evil\\n" >> .git/config', '.git/config', '[core]\n'],
    ['echo x > .toolexec/config.json', '.toolexec/config.json', '{}\n'],
  ])('runs %j and the steering file stays as it was, while a plain file is written', async (command, file, content) => {
    // Written plainly, the write asks in every mode; hidden from the parser, the kernel holds.
    const ran = await run(server, 'approved', `echo ok > written.txt; ${hiddenFromParser(command)}`)
    expect(ran).toMatchObject({ status: 'succeeded', exitCode: 1, confined: true })
    expect(ran.output).toMatch(/Read-only file system/)
    expect(readFileSync(path.join(workspace, 'written.txt'), 'utf8')).toBe('ok\n')
    expect(readFileSync(path.join(workspace, file), 'utf8')).toBe(content)
  })

  it('cannot add a git hook', async () => {
    const ran = await run(server, 'approved', `echo ok > written.txt; ${hiddenFromParser('printf "#!/bin/sh\\n" > .git/hooks/pre-commit')}`)
    expect(ran).toMatchObject({ status: 'succeeded', exitCode: 1 })
    expect(existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false)
  })

  it('still cannot read outside, nor reach the network', async () => {
    const ran = await run(server, 'approved', `cat ${outsideFile}; cat < /dev/tcp/127.0.0.1/${port}; echo done`)
    expect(ran).toMatchObject({ status: 'succeeded', exitCode: 0 })
    expect(ran.output).toMatch(/No such file[\s\S]*Connection refused[\s\S]*done\n?$/)
    expectNoSecret(ran)
  })

  it("reads and writes the extra paths of the session's sandbox settings, and reaches the network when allowed", async () => {
    const extra = path.join(root, 'outside')
    const body = { id: 'extra', workspace, permissionMode: 'bypassPermissions', sandbox: { writablePaths: [extra], network: true } }
    expect((await server.json('POST', '/sessions', body)).status).toBe(201)
    const ran = await run(server, 'extra', `cat ${outsideFile} && echo added > ${extra}/added.txt && exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`)
    expect(ran).toMatchObject({ status: 'succeeded', exitCode: 0 })
    expect(ran.output).toContain(OUTSIDE)
    expect(ran.output).toContain(`NETWORK-${MARK}`)
    expect(readFileSync(path.join(extra, 'added.txt'), 'utf8')).toBe('added\n')
  })

  it('refuses a relative sandbox path with a 400', async () => {
    const reply = await server.json<{ error: { code: string } }>('POST', '/sessions', { id: 'bad', workspace, sandbox: { readOnlyPaths: ['relative/path'] } })
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe('API_ERR_VALIDATION')
  })
})

describe('unconfined (TOOLEXEC_SANDBOX=off): the fast path is off', () => {
  let server: TestServer

  beforeAll(async () => {
    const sandbox = probeSandbox('off')
    server = await startTestServer({ tools: builtinTools({ sandbox }), sandbox, env: { TOOLEXEC_SANDBOX: 'off' } })
    expect((await server.json('POST', '/sessions', { id: 'open', workspace, interactive: false })).status).toBe(201)
  })

  afterAll(async () => {
    await server.close()
  })

  it('says so in /healthz', async () => {
    const health = await server.json<{ sandbox: { confined: boolean; mode: string; reason: string } }>('GET', '/healthz')
    expect(health.body.sandbox).toMatchObject({ confined: false, mode: 'off', reason: containing('TOOLEXEC_SANDBOX=off') })
  })

  it.each(ATTACKS.map(([command]) => command))('asks for %j (denied here, with nobody to ask)', async (command) => {
    const ran = await run(server, 'open', withPaths(command))
    expect(ran.status).toBe('denied')
    expectNoSecret(ran)
  })

  it.each([
    ['cat in.txt', 'inside line\n'],
    ['ls', 'AGENTS.md\nCLAUDE.md\ndir\nin.txt\nlnk\nrootlink\nsub\n'],
    ['head -n 1 sub/note.txt', 'a note\n'],
    ['grep -n inside in.txt', '1:inside line\n'],
  ])('still runs %j unasked: it is in the strict subset', async (command, output) => {
    const ran = await run(server, 'open', command)
    expect(ran).toMatchObject({ status: 'succeeded', exitCode: 0, output, confined: false })
  })

  it('asks for a strict-looking command whose path leads out through a symlink', async () => {
    expect((await run(server, 'open', 'cat lnk')).status).toBe('denied')
  })
})

describe('TOOLEXEC_SANDBOX=required', () => {
  it('starts when bubblewrap runs here', () => {
    expect(probeSandbox('required')).toMatchObject({ confined: true, mode: 'required' })
  })

  it('refuses to start, with one line, when no sandbox can', () => {
    const main = path.join(import.meta.dirname, '..', '..', 'src', 'main.ts')
    const dataDir = tempDirSync('required')
    try {
      const child = spawnSync(process.execPath, ['--import', 'tsx', main], {
        env: { ...process.env, PATH: '/nonexistent', TOOLEXEC_SANDBOX: 'required', TOOLEXEC_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 20_000,
      })
      expect(child.status).toBe(2)
      expect(child.stderr).toMatch(/^toolexec: TOOLEXEC_SANDBOX is required, but no sandbox can start: bwrap \(bubblewrap\) is not installed\n$/)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 30_000)
})
