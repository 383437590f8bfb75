/**
 * Issue 12: a read-only git command that runs unasked (SPEC A6, R40) starts no program named
 * in the repository's config. Each case first runs the command with plain bash to prove the
 * config does start its program (the marker appears), then through the server in default
 * mode: it either runs, its output shows it really ran and the marker stays away, or it asks.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinTools } from '../../src/tools/builtin.js'
import { bashCall, openSession, type BashOutcome } from '../support/bash-calls.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { tempDirSync } from '../support/temp-dirs.js'

let server: TestServer
let scratch: string
let marker: string
let evil: string
let signer: string

beforeAll(async () => {
  server = await startTestServer({ tools: builtinTools() })
  scratch = tempDirSync('git-fast-path')
  marker = path.join(scratch, 'marker')
  evil = path.join(scratch, 'evil.sh')
  // Writes the marker; as a textconv or a filter it passes the content through.
  writeFileSync(evil, `#!/bin/sh\necho "ran $0 $*" >> '${marker}'\nif [ -f "$1" ]; then cat "$1"; else cat; fi\n`)
  chmodSync(evil, 0o755)
  signer = path.join(scratch, 'signer.sh')
  writeFileSync(signer, '#!/bin/sh\ncat > /dev/null\nprintf "\\n[GNUPG:] SIG_CREATED D 1 8 00 0 X\\n" >&2\nprintf -- "-----BEGIN PGP SIGNATURE-----\\n\\nx\\n-----END PGP SIGNATURE-----\\n"\n')
  chmodSync(signer, 0o755)
})

afterAll(async () => {
  await server.close()
})

const GIT_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')))

function git(cwd: string, ...args: string[]): void {
  const result = spawnSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`)
}

let repos = 0

/** A repository with one commit and one modified file, then `config` appended to its .git/config. */
function repo(config: string, setup: (dir: string) => void = () => {}): string {
  const dir = path.join(scratch, `repo-${++repos}`)
  mkdirSync(dir)
  git(dir, 'init', '-q')
  git(dir, 'config', 'user.email', 'dev@example.com')
  git(dir, 'config', 'user.name', 'Dev')
  writeFileSync(path.join(dir, 'a.txt'), 'first line\n')
  writeFileSync(path.join(dir, 'b.txt'), 'unchanged\n')
  setup(dir)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-qm', 'first commit')
  // A signature for log.showSignature to check: the signer only pretends, as gpg would answer.
  git(dir, '-c', `gpg.program=${signer}`, '-c', 'user.signingkey=dev', 'commit', '-q', '-S', '--allow-empty', '-m', 'signed commit')
  writeFileSync(path.join(dir, 'a.txt'), 'first line\nsecond line\n')
  writeFileSync(path.join(dir, '.git', 'config'), `${readFileSync(path.join(dir, '.git', 'config'), 'utf8')}${config.replaceAll('EVIL', evil)}\n`)
  return dir
}

/** Without toolexec the config does run its program: the case can fail. */
function provesTheConfigRunsAProgram(dir: string, command: string): void {
  rmSync(marker, { force: true })
  spawnSync('bash', ['-c', command], { cwd: dir, env: GIT_ENV, encoding: 'utf8' })
  expect(existsSync(marker), `plain bash ran no program for: ${command}`).toBe(true)
  rmSync(marker, { force: true })
}

async function throughToolexec(dir: string, command: string): Promise<BashOutcome> {
  const sessionId = await openSession(server.json, dir, 'default')
  return bashCall(server.json, sessionId, { command })
}

const FSMONITOR = '[core]\n\tfsmonitor = EVIL'

describe('read-only git on the fast path runs with the keys it cannot be trusted with neutralised', () => {
  it.each<[string, string, string, RegExp, boolean?]>([
    ['core.fsmonitor, git status', FSMONITOR, 'git status --short', /M a\.txt/],
    ['core.fsmonitor, git diff', FSMONITOR, 'git diff', /\+second line/],
    ['core.fsmonitor, git status | head', FSMONITOR, 'git status --porcelain | head -5', /M a\.txt/],
    ['core.fsmonitor, git describe --dirty', FSMONITOR, 'git describe --always --dirty', /-dirty/],
    ['core.fsmonitor, git ls-files -m', FSMONITOR, 'git ls-files -m', /a\.txt/],
    ['core.fsmonitor, git blame', FSMONITOR, 'git blame a.txt', /first line/],
    ['core.fsmonitor from an included file of the worktree', '[include]\n\tpath = ../extra.cfg', 'git status --short', /M a\.txt/],
    ['core.pager, forced with -p', '[core]\n\tpager = EVIL', 'git -p log --oneline', /first commit/, true],
    ['pager.log', '[pager]\n\tlog = EVIL', 'git log --oneline', /first commit/, true],
    ['log.showSignature with gpg.program', '[log]\n\tshowSignature = true\n[gpg]\n\tprogram = EVIL', 'git log --oneline', /signed commit/],
  ])('%s: runs, and starts nothing', async (_name, config, command, expected, pager = false) => {
    const dir = repo(config, (root) => writeFileSync(path.join(root, 'extra.cfg'), `[core]\n\tfsmonitor = ${evil}\n`))
    // A pager only runs on a terminal: plain bash is given one through `script`.
    const proof = pager ? `script -qec '${command}' /dev/null` : command
    provesTheConfigRunsAProgram(dir, proof)
    const outcome = await throughToolexec(dir, command)
    expect(outcome).toMatchObject({ kind: 'ran' })
    if (outcome.kind === 'ran') expect(outcome.output).toMatch(expected)
    expect(existsSync(marker)).toBe(false)
  })

  it('core.hooksPath with a post-index-change hook: git status runs, and starts nothing', async () => {
    const hooks = path.join(scratch, 'hooks')
    mkdirSync(hooks, { recursive: true })
    writeFileSync(path.join(hooks, 'post-index-change'), `#!/bin/sh\necho hook >> '${marker}'\n`)
    chmodSync(path.join(hooks, 'post-index-change'), 0o755)
    const dir = repo(`[core]\n\thooksPath = ${hooks}`)
    // A new stat on an unchanged file makes status rewrite the index, and so run the hook. A
    // modified file would not: its entry stays stale, and only a racy timestamp left by a fast
    // setup would have the index written.
    const restat = 'sleep 1.1 && touch b.txt'
    provesTheConfigRunsAProgram(dir, `${restat} && git status --short`)
    spawnSync('bash', ['-c', restat], { cwd: dir })
    const outcome = await throughToolexec(dir, 'git status --short')
    expect(outcome).toMatchObject({ kind: 'ran' })
    if (outcome.kind === 'ran') expect(outcome.output).toMatch(/M a\.txt/)
    expect(existsSync(marker)).toBe(false)
  })
})

const TEXTCONV = '[diff "evil"]\n\ttextconv = EVIL'
const withAttributes = (root: string): void => writeFileSync(path.join(root, '.gitattributes'), '*.txt diff=evil filter=evil\n')

describe('read-only git on the fast path asks when the repository names a program no override can stop', () => {
  it.each<[string, string, string]>([
    ['diff.external, git diff', '[diff]\n\texternal = EVIL', 'git diff'],
    ['a textconv, git diff', TEXTCONV, 'git diff'],
    ['a textconv, git log -p', TEXTCONV, 'git log -p'],
    ['a textconv, git show', TEXTCONV, 'git show HEAD~1'],
    ['a textconv, git diff after another command', TEXTCONV, 'ls && git diff --stat -p'],
    ['a diff driver command, git diff', '[diff "evil"]\n\tcommand = EVIL', 'git diff'],
    ['a clean filter, git status', '[filter "evil"]\n\tclean = EVIL', 'git status --short'],
    ['a clean filter, git diff', '[filter "evil"]\n\tclean = EVIL', 'git diff'],
    ['a textconv from an included file of the worktree', '[include]\n\tpath = ../textconv.cfg', 'git diff'],
    ['a textconv from includeIf gitdir', '[includeIf "gitdir:/"]\n\tpath = ../textconv.cfg', 'git diff'],
  ])('%s', async (_name, config, command) => {
    const dir = repo(config, (root) => {
      withAttributes(root)
      writeFileSync(path.join(root, 'textconv.cfg'), `[diff "evil"]\n\ttextconv = ${evil}\n`)
    })
    // The clean filter runs once the file looks changed to status; a fresh stat makes sure of it.
    spawnSync('bash', ['-c', 'sleep 1.1; touch a.txt b.txt'], { cwd: dir })
    provesTheConfigRunsAProgram(dir, command)
    const outcome = await throughToolexec(dir, command)
    expect(outcome).toMatchObject({ kind: 'asked' })
    if (outcome.kind === 'asked') expect(outcome.reason).toMatch(/names programs git may run/)
    expect(existsSync(marker)).toBe(false)
  })

  it.each([
    ['cd into a nested repository', 'cd vendor/lib && git diff'],
    ['git -C a nested repository', 'git -C vendor/lib diff'],
  ])('%s with a textconv of its own', async (_name, command) => {
    const outer = repo('')
    const nested = path.join(outer, 'vendor', 'lib')
    mkdirSync(path.dirname(nested), { recursive: true })
    const inner = repo(TEXTCONV, withAttributes)
    spawnSync('mv', [inner, nested])
    provesTheConfigRunsAProgram(outer, command)
    const outcome = await throughToolexec(outer, command)
    expect(outcome).toMatchObject({ kind: 'asked' })
    expect(existsSync(marker)).toBe(false)
  })

  it.each([
    ['env -i drops the overrides', 'env -i git status --short'],
    ['env -u drops one', 'env -u GIT_CONFIG_COUNT git status --short'],
    ['an assignment replaces them', 'GIT_CONFIG_COUNT=0 git status --short'],
    ['git -c sets a key', 'git -c core.fsmonitor=EVIL status --short'],
    ['--config-env sets a key', 'git --config-env=core.fsmonitor=HOME status'],
  ])('%s: not read-only, so it asks', async (_name, command) => {
    const dir = repo(FSMONITOR)
    const outcome = await throughToolexec(dir, command.replace('EVIL', evil))
    expect(outcome).toMatchObject({ kind: 'asked' })
    expect(existsSync(marker)).toBe(false)
  })
})
