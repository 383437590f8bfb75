/**
 * Issue 12: no command sees the server's secrets. `npm start` runs with TOOLEXEC_TOKEN, a fake
 * AWS_SECRET_ACCESS_KEY and the token again under another name; Bash commands (foreground,
 * background, read-only ones in default mode), a command hook and an MCP server dump their
 * environment every way there is, and none shows the token or the secret, while what the
 * config's `env` and `passEnv` name does arrive. Each command's output proves it ran.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bashCall, openSession, type BashOutcome, type JsonFetch } from '../support/bash-calls.js'
import { startMain, type MainChild } from '../support/main-process.js'
import { MCP_SERVER_SCRIPT } from '../support/mcp-server.js'
import { tempDirSync } from '../support/temp-dirs.js'

const TOKEN = randomBytes(24).toString('hex')
const SECRET = `fake-aws-${randomBytes(12).toString('hex')}`
const SECRETS = [TOKEN, SECRET]

let dataDir: string
let server: MainChild
let json: JsonFetch

beforeAll(async () => {
  dataDir = tempDirSync('env')
  const configFile = path.join(dataDir, 'config.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      env: { FIXED_VALUE: 'fixed-42' },
      passEnv: ['PASSED_THROUGH', 'ALSO_TOKEN'],
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'env > "$CLAUDE_PROJECT_DIR/hook-env.txt"', passEnv: ['HOOK_ONLY'] }] }] },
      mcpServers: {
        envdump: { command: 'bash', args: ['-c', `env > '${dataDir}/mcp-env.txt'; exec node --import tsx '${MCP_SERVER_SCRIPT}'`], passEnv: ['MCP_ONLY'] },
      },
    }),
  )
  server = await startMain(dataDir, 0, {
    TOOLEXEC_TOKEN: TOKEN,
    TOOLEXEC_CONFIG: configFile,
    AWS_SECRET_ACCESS_KEY: SECRET,
    ALSO_TOKEN: TOKEN,
    PASSED_THROUGH: 'yes-passed',
    HOOK_ONLY: 'hook-only-value',
    MCP_ONLY: 'mcp-only-value',
  })
  json = async <T>(method: string, route: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${server.url}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await response.text()
    return { status: response.status, body: (text.length > 0 ? JSON.parse(text) : undefined) as T }
  }
}, 60_000)

afterAll(async () => {
  server?.child.kill('SIGTERM')
  await server?.exited
})

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret)
  expect(text).not.toMatch(/TOOLEXEC_(?!PROCESS_TAG)/)
}

async function ran(mode: 'default' | 'bypassPermissions', command: string): Promise<Extract<BashOutcome, { kind: 'ran' }>> {
  const outcome = await bashCall(json, await openSession(json, dataDir, mode), { command })
  if (outcome.kind !== 'ran') throw new Error(`${command} asked: ${outcome.reason}`)
  expectNoSecret(outcome.output)
  return outcome
}

describe('read-only commands that run unasked in default mode show no secret', () => {
  it.each<[string, RegExp | number]>([
    ['printenv TOOLEXEC_TOKEN', 1],
    ['printenv AWS_SECRET_ACCESS_KEY', 1],
    ['printenv ALSO_TOKEN', 1],
    ['printenv', /FIXED_VALUE=fixed-42/],
    ['env', /PATH=/],
    ['env -0 | tr "\\0" "\\n"', /PATH=/],
    ['jq -n env.TOOLEXEC_TOKEN', /^null\s*$/],
    ['jq -n env', /"FIXED_VALUE": "fixed-42"/],
    ['jq -rn \'env | keys | join(",")\'', /PATH/],
  ])('%s', async (command, expected) => {
    const outcome = await ran('default', command)
    if (typeof expected === 'number') expect(outcome.exitCode).toBe(expected)
    else expect(outcome.output).toMatch(expected)
  })
})

describe('any command, approved or in bypassPermissions mode, shows no secret', () => {
  it.each<[string, RegExp]>([
    ['cat /proc/self/environ | tr "\\0" "\\n"', /PATH=/],
    ['cat /proc/$PPID/environ | tr "\\0" "\\n"', /PATH=/],
    ['set', /FIXED_VALUE=fixed-42/],
    ['declare -p', /FIXED_VALUE="fixed-42"/],
    ['export -p', /FIXED_VALUE="fixed-42"/],
    ['declare -x', /PATH=/],
    ['compgen -e | while read -r name; do echo "$name=${!name}"; done', /FIXED_VALUE=fixed-42/],
    ['awk \'BEGIN { print "token=" ENVIRON["TOOLEXEC_TOKEN"] }\'', /^token=\s*$/],
    ['awk \'BEGIN { for (name in ENVIRON) print name "=" ENVIRON[name] }\'', /FIXED_VALUE=fixed-42/],
    ["python3 -c 'import os; print(dict(os.environ))'", /'FIXED_VALUE': 'fixed-42'/],
    ["node -e 'console.log(JSON.stringify(process.env))'", /"FIXED_VALUE":"fixed-42"/],
    ['perl -e \'print "$_=$ENV{$_}\\n" for keys %ENV\'', /FIXED_VALUE=fixed-42/],
    ['sh -c env', /PATH=/],
    ['env -i bash -c env; env', /FIXED_VALUE=fixed-42/],
  ])('%s', async (command, expected) => {
    const outcome = await ran('bypassPermissions', command)
    expect(outcome.output).toMatch(expected)
  })

  it('a background command', async () => {
    const file = path.join(dataDir, 'bg-env.txt')
    const outcome = await bashCall(json, await openSession(json, dataDir, 'bypassPermissions'), { command: `env > '${file}.part' && mv '${file}.part' '${file}'`, run_in_background: true })
    expect(outcome.kind).toBe('ran')
    await expect.poll(() => existsSync(file), { timeout: 10_000 }).toBe(true)
    const env = readFileSync(file, 'utf8')
    expect(env).toMatch(/FIXED_VALUE=fixed-42/)
    expectNoSecret(env)
  })

  it('the process tag the kill scan relies on is still there', async () => {
    const outcome = await ran('bypassPermissions', 'printenv TOOLEXEC_PROCESS_TAG')
    expect(outcome.output).toMatch(/^[0-9a-f]{24}\s*$/)
  })
})

describe('passEnv and env of the config', () => {
  it('a command gets what the global passEnv and env name, and nothing that holds the token', async () => {
    const outcome = await ran('bypassPermissions', 'printenv PASSED_THROUGH FIXED_VALUE; echo "also=${ALSO_TOKEN-unset} hook=${HOOK_ONLY-unset} mcp=${MCP_ONLY-unset}"')
    expect(outcome.output).toBe('yes-passed\nfixed-42\nalso=unset hook=unset mcp=unset\n')
  })

  it('a command hook gets the allow-list, the global settings and its own passEnv, and no secret', async () => {
    await ran('bypassPermissions', 'true')
    const env = readFileSync(path.join(dataDir, 'hook-env.txt'), 'utf8')
    expect(env).toMatch(/^FIXED_VALUE=fixed-42$/m)
    expect(env).toMatch(/^PASSED_THROUGH=yes-passed$/m)
    expect(env).toMatch(/^HOOK_ONLY=hook-only-value$/m)
    expect(env).toMatch(/^CLAUDE_PROJECT_DIR=/m)
    expect(env).not.toMatch(/MCP_ONLY/)
    expectNoSecret(env)
  })

  it('an MCP server gets the allow-list, the global settings and its own passEnv, and no secret', () => {
    const env = readFileSync(path.join(dataDir, 'mcp-env.txt'), 'utf8')
    expect(env).toMatch(/^FIXED_VALUE=fixed-42$/m)
    expect(env).toMatch(/^MCP_ONLY=mcp-only-value$/m)
    expect(env).not.toMatch(/HOOK_ONLY/)
    expectNoSecret(env)
  })
})
