/**
 * The host behind the sandbox, through the real HTTP server and real bwrap: a confined command
 * cannot change the kernel's settings (never written here: only whether a write could open is
 * asked), runs as the workspace's unprivileged owner when the server is root, cannot make the
 * system calls no tool command needs, sees none of the server's files wherever they are, and
 * cannot create the steering files that do not exist yet.
 */
import { randomBytes } from 'node:crypto'
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionService } from '../../src/contracts/ports.js'
import { probeSandbox, sandboxSummary } from '../../src/tools/bash/sandbox-probe.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { hiddenFromParser, runBashCall, type BashRun } from '../support/bash-calls.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const MARK = randomBytes(6).toString('hex')
const isRoot = process.getuid?.() === 0
/** A uid that owns nothing on the host but the workspace made for it. */
const OWNER = 1000

/** Everything is allowed and may write the workspace: only the sandbox holds. */
const ALLOW_ALL: PermissionService = { evaluate: () => ({ behavior: 'allow', ruleId: 'Bash(*)', reason: 'allowed by a rule' }) }

function workspaceOwnedBy(uid: number): string {
  const dir = tempDirSync(`owned-${uid}`)
  chownSync(dir, uid, uid)
  return dir
}

/** Whether a write to `file` could even open, asked twice; nothing is ever written. */
function openForWriting(file: string): string {
  return `if [ -w ${file} ]; then echo "${file} is writable"; fi; if (exec 3>>${file}) 2>/dev/null; then echo "${file} opened"; else echo "${file} refused"; fi`
}

const KNOBS = ['/proc/sys/kernel/core_pattern', '/proc/sys/kernel/panic', '/proc/sys/vm/drop_caches', '/proc/sysrq-trigger', '/sys/kernel/mm/transparent_hugepage/enabled']

let server: TestServer
let rootWorkspace: string
let ownedWorkspace: string

beforeAll(async () => {
  expect(probeSandbox('auto')).toMatchObject({ confined: true })
  server = await startTestServer({ tools: builtinTools(), permissions: ALLOW_ALL })
  rootWorkspace = tempDirSync('root-owned')
  ownedWorkspace = isRoot ? workspaceOwnedBy(OWNER) : rootWorkspace
  for (const [id, workspace] of [
    ['root', rootWorkspace],
    ['owned', ownedWorkspace],
  ])
    expect((await server.json('POST', '/sessions', { id, workspace })).status).toBe(201)
})

afterAll(async () => {
  await server.close()
})

/** Runs `command` and expects it to end succeeded (whatever its exit code). */
async function run(server: TestServer, sessionId: string, command: string): Promise<BashRun> {
  const ran = await runBashCall(server.json, sessionId, command)
  expect(ran.status).toBe('succeeded')
  return ran
}

describe('the kernel settings', () => {
  it.each(KNOBS.flatMap((knob) => [['root', knob] as const, ['owned', knob] as const]))('cannot be opened for writing from a %s workspace: %s', async (session, knob) => {
    const ran = await run(server, session, openForWriting(knob))
    expect(ran).toMatchObject({ exitCode: 0, confined: true })
    expect(ran.output).toBe(`${knob} refused\n`)
  })

  it('has no /sys at all', async () => {
    const ran = await run(server, 'root', 'ls /sys')
    expect(ran.output).toMatch(/No such file/)
  })
})

describe.runIf(isRoot)('a root server', () => {
  it('says in its start line whom commands run as', () => {
    expect(sandboxSummary(probeSandbox('auto'))).toMatch(/^confined as the workspace owner's uid/)
  })

  it("runs a command in a workspace a user owns as that user, and what it creates is the user's", async () => {
    const ran = await run(server, 'owned', 'id -u; id -g; id -G; echo made > made.txt; mkdir made-dir')
    expect(ran).toMatchObject({ exitCode: 0, confined: true })
    expect(ran.output).toBe(`${OWNER}\n${OWNER}\n${OWNER}\n`)
    for (const made of ['made.txt', 'made-dir']) expect(statSync(path.join(ownedWorkspace, made))).toMatchObject({ uid: OWNER, gid: OWNER })
  })

  it('runs one in a workspace root owns as root without capabilities', async () => {
    const ran = await run(server, 'root', 'id -u; grep -E "^Cap(Eff|Prm|Bnd)" /proc/self/status')
    expect(ran.output).toBe('0\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n')
  })
})

/** perl's syscall(), so that no program's own check runs before the kernel's: `errno` or `ok`. */
function syscall(name: string, ...args: (number | string)[]): string {
  return `perl -e 'require "syscall.ph"; my $r = syscall(&SYS_${name}, ${args.join(', ')}); print "${name} ", ($r == -1 ? $!{EPERM} ? "EPERM" : "$!" : "ok"), "\\n"'`
}

describe('the seccomp filter', () => {
  it.each(['root', 'owned'])('refuses namespaces, tracing, keyrings and mounts with EPERM (%s workspace)', async (session) => {
    const command = [
      'unshare -U true 2>&1 | grep -o "Operation not permitted"',
      syscall('ptrace', 0, 0, 0, 0),
      syscall('keyctl', 0, -3, 0),
      syscall('unshare', 0x10000000),
      syscall('mount', 0, 0, 0, 0, 0),
      syscall('bpf', 0, 0, 0),
    ].join('; ')
    const ran = await run(server, session, command)
    expect(ran.output).toBe('Operation not permitted\nptrace EPERM\nkeyctl EPERM\nunshare EPERM\nmount EPERM\nbpf EPERM\n')
  })

  it.each(['root', 'owned'])('leaves what tool commands do alone: git, node, python, pipelines, background jobs (%s workspace)', async (session) => {
    const command = [
      'git init -q repo && cd repo && echo a > a && git add a && git -c user.name=t -c user.email=t@t commit -qm first && git log --format=%s && cd ..',
      `node -e 'require("child_process").execFileSync("true"); console.log("node", 1 + 1)'`,
      "python3 -c \"import subprocess; subprocess.run(['true']); print('python')\"",
      'seq 1 5 | sort -r | head -n 2 | tr "\\n" " "; echo',
      '(sleep 0.1; echo background) & wait',
    ].join('; ')
    const ran = await run(server, session, command)
    expect(ran.output).toBe('first\nnode 2\npython\n5 4 \nbackground\n')
  })
})

describe('the server itself', () => {
  it("is not in the command's /proc", async () => {
    const ran = await run(server, 'root', `ls /proc/${process.pid}/environ; ls -d /proc/[0-9]* | wc -l`)
    expect(ran.output).toMatch(/No such file/)
    expect(ran.output).not.toContain(MARK)
  })
})

describe.runIf(isRoot)('server files under the system directories', () => {
  const places = ['/etc/opt', '/opt', '/srv'].map((dir) => path.join(dir, `toolexec-test-${MARK}`))
  const [etcOpt, opt, srv] = places as [string, string, string]
  const secrets = { config: `CONFIG-${MARK}`, env: `ENV-${MARK}`, data: `DATA-${MARK}` }
  let placed: TestServer

  beforeAll(async () => {
    for (const dir of places) mkdirSync(dir, { recursive: true })
    const config = path.join(etcOpt, 'config.json')
    writeFileSync(config, JSON.stringify({ sandbox: { readOnlyPaths: [`/${secrets.config}`] } }))
    writeFileSync(path.join(etcOpt, 'toolexec.env'), `TOOLEXEC_TOKEN=${secrets.env}\n`)
    writeFileSync(path.join(srv, 'token.env'), `TOOLEXEC_TOKEN=${secrets.env}\n`)
    placed = await startTestServer({ tools: builtinTools(), permissions: ALLOW_ALL, dataDir: path.join(opt, 'data'), env: { TOOLEXEC_CONFIG: config } })
    writeFileSync(path.join(opt, 'data', 'secret.txt'), secrets.data)
    expect((await placed.json('POST', '/sessions', { id: 'placed', workspace: rootWorkspace })).status).toBe(201)
  })

  afterAll(async () => {
    await placed?.close()
    for (const dir of places) rmSync(dir, { recursive: true, force: true })
  })

  it('shows a command neither the config, the env file beside it, the data directory nor files under /srv', async () => {
    const files = [path.join(etcOpt, 'config.json'), path.join(etcOpt, 'toolexec.env'), path.join(opt, 'data', 'secret.txt'), path.join(opt, 'data', 'toolexec.db'), path.join(srv, 'token.env')]
    const ran = await run(placed, 'placed', `cat ${files.join(' ')}; ls -a ${places.join(' ')}; head -c 16 ${path.join(opt, 'data', 'toolexec.db')}; echo done`)
    expect(ran.output).toMatch(/done\n$/)
    for (const secret of Object.values(secrets)) expect(ran.output).not.toContain(secret)
    expect(ran.output).not.toContain('SQLite format')
    // ls lists none of them.
    expect(ran.output).not.toMatch(/^(config\.json|toolexec\.env|secret\.txt|toolexec\.db|token\.env)$/m)
  })
})

describe('steering files that do not exist yet', () => {
  it.each(['root', 'owned'])('cannot be created by an allowed command (%s workspace)', async (session) => {
    const workspace = session === 'root' ? rootWorkspace : ownedWorkspace
    mkdirSync(path.join(workspace, '.git'), { recursive: true })
    if (session === 'owned' && isRoot) chownSync(path.join(workspace, '.git'), OWNER, OWNER)
    const config = JSON.stringify({ permissions: { allow: ['Bash'] } })
    const attempts = [`mkdir -p .toolexec; echo '${config}' > .toolexec/config.json`, 'mkdir -p .git/hooks; printf "#!/bin/sh\\n" > .git/hooks/pre-commit', 'echo written > plain.txt']
    const ran = await run(server, session, attempts.map(hiddenFromParser).join('; '))
    expect(ran.output).toMatch(/Read-only file system[\s\S]*Read-only file system/)
    expect(existsSync(path.join(workspace, '.toolexec', 'config.json'))).toBe(false)
    expect(existsSync(path.join(workspace, '.git', 'hooks', 'pre-commit'))).toBe(false)
    expect(readFileSync(path.join(workspace, 'plain.txt'), 'utf8')).toBe('written\n')
  })
})
