import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeGrantOf } from '../../src/executor/permission-flow.js'
import { isStrictlyReadOnly } from '../../src/permissions/strict-read-only.js'
import { ToolexecError } from '../../src/contracts/errors.js'
import { bwrapArguments, DEFAULT_SANDBOX_SETTINGS, sandboxHome, type ConfinementPlan } from '../../src/tools/bash/sandbox.js'
import { parseSandboxConfig, withSession } from '../../src/tools/bash/sandbox-config.js'
import { installRoot, serverPaths } from '../../src/tools/bash/server-paths.js'
import { tempDirSync } from '../support/temp-dirs.js'

const workspace = tempDirSync('sandbox-args')
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

function plan(overrides: Partial<ConfinementPlan> = {}): string[] {
  return bwrapArguments({ workspace, cwd: workspace, writes: 'workspace', settings: DEFAULT_SANDBOX_SETTINGS, ...overrides })
}

/** The [option, source, destination] triples of a command line that bind `destination`. */
function bindsOf(args: readonly string[], destination: string): string[] {
  const found: string[] = []
  for (let index = 0; index < args.length; index++) {
    if (/^--(ro-)?bind(-try)?$/.test(args[index] ?? '') && args[index + 2] === destination) found.push(args[index] ?? '')
  }
  return found
}

describe('the bwrap command line', () => {
  it('binds the workspace read-only for a call run unasked, writable for an allowed one', () => {
    expect(bindsOf(plan({ writes: 'none' }), workspace)).toEqual(['--ro-bind'])
    expect(bindsOf(plan({ writes: 'workspace' }), workspace)).toEqual(['--bind'])
  })

  it('binds the steering files read-only over a writable workspace unless their write was approved', () => {
    const repo = tempDirSync('sandbox-steering')
    for (const dir of ['.git/hooks', '.toolexec']) mkdirSync(path.join(repo, dir), { recursive: true })
    for (const file of ['.git/config', 'AGENTS.md', 'CLAUDE.md']) writeFileSync(path.join(repo, file), '')
    const args = (writes: 'workspace' | 'steering'): string[] => plan({ workspace: repo, cwd: repo, writes })
    for (const relative of ['.git/config', '.git/hooks', 'AGENTS.md', 'CLAUDE.md', '.toolexec']) {
      expect(bindsOf(args('workspace'), path.join(repo, relative))).toEqual(['--ro-bind-try'])
      expect(bindsOf(args('steering'), path.join(repo, relative))).toEqual([])
    }
  })

  it('puts an empty read-only directory where .toolexec or .git/hooks does not exist yet, and no file for AGENTS.md', () => {
    const repo = tempDirSync('sandbox-missing')
    mkdirSync(path.join(repo, '.git'))
    const args = plan({ workspace: repo, cwd: repo }).join(' ')
    for (const dir of ['.toolexec', '.git/hooks']) expect(args).toContain(`--tmpfs ${path.join(repo, dir)} --remount-ro ${path.join(repo, dir)}`)
    expect(args).toContain(`--ro-bind /dev/null ${path.join(repo, '.git/config')}`)
    expect(args).not.toContain('AGENTS.md')
    expect(args).not.toContain('CLAUDE.md')
    // Outside a repository, git's paths are left alone: `git init` still works.
    expect(plan({ writes: 'workspace' }).join(' ')).not.toContain('.git/hooks')
  })

  it('has no network unless allowed, its own pid namespace and /proc, no capabilities as root, and ends with --', () => {
    const args = plan()
    expect(args).toContain('--unshare-net')
    expect(plan({ settings: { ...DEFAULT_SANDBOX_SETTINGS, network: true } })).not.toContain('--unshare-net')
    expect(args.join(' ')).toContain('--unshare-pid --proc /proc')
    expect(args.at(-1)).toBe('--')
    expect(args.join(' ')).toContain(`--remount-ro / --setenv HOME `)
  })

  it('makes extra writable paths read-only for a call run unasked', () => {
    const settings = { readOnlyPaths: ['/srv/ref'], writablePaths: ['/srv/out'], network: false }
    expect(bindsOf(plan({ settings }), '/srv/out')).toEqual(['--bind-try'])
    expect(bindsOf(plan({ settings, writes: 'none' }), '/srv/out')).toEqual(['--ro-bind-try'])
    expect(bindsOf(plan({ settings }), '/srv/ref')).toEqual(['--ro-bind-try'])
  })

  it('hides server files under a visible path, but not one that is the workspace', () => {
    const data = path.join(workspace, 'data')
    mkdirSync(data)
    const args = plan({ hiddenPaths: [data, workspace, path.join(workspace, 'missing')] }).join(' ')
    expect(args).toContain(`--tmpfs ${data} --remount-ro ${data}`)
    expect(args).not.toContain(`--tmpfs ${workspace} `)
    expect(args).not.toContain('missing')
  })

  it('hides what else a server directory holds when it holds the workspace', () => {
    const shared = tempDirSync('sandbox-shared')
    const data = path.join(shared, 'data')
    const inside = path.join(data, 'ws')
    mkdirSync(inside, { recursive: true })
    mkdirSync(path.join(data, 'artifacts'))
    writeFileSync(path.join(data, 'toolexec.db'), 'SQLite format 3')
    // The data directory lies in a directory the session may read, and holds its workspace.
    const settings = { ...DEFAULT_SANDBOX_SETTINGS, readOnlyPaths: [shared] }
    const args = plan({ workspace: inside, cwd: inside, hiddenPaths: [data], settings }).join(' ')
    expect(args).toContain(`--ro-bind /dev/null ${path.join(data, 'toolexec.db')}`)
    expect(args).toContain(`--tmpfs ${path.join(data, 'artifacts')} --remount-ro`)
    expect(args).not.toContain(`--tmpfs ${inside} `)
  })

  it("counts the server's install, the config file's directory and files named by TOOLEXEC_* variables among its paths", () => {
    const config = tempDirSync('sandbox-config')
    const envFile = path.join(tempDirSync('sandbox-env'), 'token')
    writeFileSync(envFile, 'x')
    const paths = serverPaths({ dataDir: '/srv/data', configFile: path.join(config, 'config.json'), env: { TOOLEXEC_TOKEN_FILE: envFile, TOOLEXEC_WORKSPACE: config, OTHER: envFile } })
    expect(paths).toEqual(['/srv/data', config, installRoot(), envFile])
    expect(JSON.parse(readFileSync(path.join(installRoot(), 'package.json'), 'utf8'))).toMatchObject({ name: 'toolexec' })
  })

  it('makes the kernel settings in /proc read-only, always starts a user namespace, and drops every capability', () => {
    const args = plan().join(' ')
    expect(args).toContain('--unshare-user --disable-userns --unshare-pid --proc /proc --ro-bind /proc/sys /proc/sys')
    expect(args).toContain('--cap-drop ALL')
    expect(args).toContain('--seccomp 7')
    expect(args).not.toMatch(/ \/sys( |$)/)
  })

  it("puts $HOME at the server's home path unless that holds what the command sees or is a system or /tmp path", () => {
    expect(sandboxHome(['/srv/ws'], '/home/dev')).toBe('/home/dev')
    expect(sandboxHome(['/home/dev/project'], '/home/dev')).toBe('/home/dev')
    expect(sandboxHome(['/home'], '/home/dev')).toBe('/tmp/home')
    expect(sandboxHome(['/srv/ws'], '/')).toBe('/tmp/home')
    expect(sandboxHome(['/srv/ws'], '/usr/local/home')).toBe('/tmp/home')
    expect(sandboxHome(['/srv/ws'], '/tmp/x')).toBe('/tmp/home')
  })
})

describe('what a call may write', () => {
  it('is nothing on the read-only fast path, the workspace otherwise, the steering files only when a person approved their ask', () => {
    expect(writeGrantOf({ behavior: 'allow', ruleId: 'mode.readOnly' }, false)).toBe('none')
    expect(writeGrantOf({ behavior: 'allow', ruleId: 'Bash(npm test)' }, false)).toBe('workspace')
    expect(writeGrantOf({ behavior: 'allow', ruleId: 'mode.bypassPermissions' }, false)).toBe('workspace')
    expect(writeGrantOf({ behavior: 'allow', ruleId: 'grant:Bash(make)' }, false)).toBe('workspace')
    expect(writeGrantOf({ behavior: 'ask', ruleId: 'mode.default' }, true)).toBe('workspace')
    expect(writeGrantOf({ behavior: 'ask', ruleId: 'instruction-file' }, true)).toBe('steering')
    expect(writeGrantOf({ behavior: 'allow', ruleId: 'instruction-file' }, false)).toBe('workspace')
  })
})

describe('the strict read-only subset', () => {
  it.each(['ls', 'ls -la sub', 'cat in.txt', 'head -n 5 in.txt', 'tail -c 10 a/b.txt', 'wc -l in.txt', 'grep -n foo in.txt', 'pwd', 'echo hello'])('takes %j', (command) => {
    expect(isStrictlyReadOnly(command)).toBe(true)
  })

  it.each([
    'cat {a,b}',
    'cat *.txt',
    'cat l?k',
    'cat [a]b',
    'cat ~/x',
    'cat $HOME',
    "cat $'x'",
    'cat "x"',
    'cd sub',
    'cd && ls',
    'ls; ls',
    'ls | wc',
    'cat /etc/passwd',
    'cat ../x',
    'cat a/../../x',
    'grep -r x .',
    'grep -R x .',
    'ls -R',
    'sed -n 1p x',
    'find .',
    'head -n +5 x',
    'cat > x',
    'git status',
    'FOO=1 cat x',
    'cat x # y',
    'echo `id`',
    'tail -f x',
  ])('refuses %j', (command) => {
    expect(isStrictlyReadOnly(command)).toBe(false)
  })
})

describe('sandbox settings', () => {
  it("adds a session's paths to the file's, and its network wins", () => {
    const file = parseSandboxConfig({ sandbox: { readOnlyPaths: ['/a'], network: true } }, 'config.json')
    expect(withSession(file, { readOnlyPaths: ['/b'], writablePaths: ['/c'], network: false })).toEqual({ readOnlyPaths: ['/a', '/b'], writablePaths: ['/c'], network: false })
    expect(withSession(file, undefined)).toEqual({ readOnlyPaths: ['/a'], writablePaths: [], network: true })
  })

  it.each([[{ readOnlyPaths: ['relative'] }], [{ network: 'yes' }], [{ other: 1 }], ['on']])('refuses a config section %j, naming the file', (section) => {
    let caught: unknown
    try {
      parseSandboxConfig({ sandbox: section }, 'config.json')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ToolexecError)
    expect((caught as ToolexecError).code).toBe('CONF_ERR_SANDBOX')
    expect((caught as Error).message).toMatch(/^Config file config\.json: sandbox: /)
  })
})
