/** Issue 12: the environment of commands, hooks and MCP servers, and the config that shapes it. */
import { describe, expect, it } from 'vitest'
import { ruleCommandSplitter } from '../../src/permissions/command-splitter.js'
import { loadPolicy, PolicyError } from '../../src/permissions/policy.js'
import { CommandEnvironment } from '../../src/processes/command-environment.js'
import { parseToolConfig } from '../../src/tools/tool-config.js'

const TOKEN = 'tok-0123456789abcdef0123'
const SERVER_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/dev',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TERM: 'xterm',
  TOOLEXEC_TOKEN: TOKEN,
  TOOLEXEC_DATA_DIR: '/data',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  GITHUB_TOKEN: 'ghp-secret',
  COPY_OF_TOKEN: TOKEN,
  AUTH_HEADER: `Bearer ${TOKEN}`,
  NODE_OPTIONS: '--require /tmp/evil.js',
  LD_PRELOAD: '/tmp/evil.so',
  BASH_ENV: '/tmp/evil.sh',
  PROJECT_ID: 'p-1',
}

describe('CommandEnvironment', () => {
  it('keeps only the allow-list of the server environment', () => {
    expect(new CommandEnvironment(SERVER_ENV, {}, TOKEN).build()).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/dev', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TERM: 'xterm' })
  })

  it('passes the names passEnv lists and sets what env gives, the own settings last', () => {
    const environment = new CommandEnvironment(SERVER_ENV, { passEnv: ['PROJECT_ID'], env: { MODE: 'global', LANG: 'en_US.UTF-8' } })
    const env = environment.build({ passEnv: ['GITHUB_TOKEN'], env: { MODE: 'own' } })
    expect(env).toMatchObject({ PROJECT_ID: 'p-1', GITHUB_TOKEN: 'ghp-secret', MODE: 'own', LANG: 'en_US.UTF-8' })
  })

  it.each([
    ['the token under another name', { passEnv: ['COPY_OF_TOKEN'] }, 'COPY_OF_TOKEN'],
    ['the token inside another value', { passEnv: ['AUTH_HEADER'] }, 'AUTH_HEADER'],
    ['the token as a fixed value', { env: { API: TOKEN } }, 'API'],
    ['a TOOLEXEC_ variable passed', { passEnv: ['TOOLEXEC_DATA_DIR'] }, 'TOOLEXEC_DATA_DIR'],
    ['a TOOLEXEC_ variable set', { env: { toolexec_token: 'x' } }, 'toolexec_token'],
  ])('never gives %s', (_name, own, missing) => {
    expect(new CommandEnvironment(SERVER_ENV, {}, TOKEN).build(own)).not.toHaveProperty(missing)
  })
})

describe('env and passEnv in the config file', () => {
  it.each([
    ['a global passEnv of the token', { passEnv: ['TOOLEXEC_TOKEN'] }, /env\/passEnv: TOOLEXEC_TOKEN: TOOLEXEC_\* variables/],
    ['a global env of TOOLEXEC_', { env: { TOOLEXEC_WORKSPACE: '/x' } }, /TOOLEXEC_WORKSPACE/],
    ['a name that is no variable name', { passEnv: ['A=B'] }, /"A=B" is not a variable name/],
    ['passEnv that is no list', { passEnv: 'HOME' }, /env\/passEnv/],
    ['an MCP server passing the token', { mcpServers: { x: { command: 'x', passEnv: ['TOOLEXEC_TOKEN'] } } }, /mcpServers\.x: TOOLEXEC_TOKEN/],
  ])('refuses %s', (_name, config, message) => {
    expect(() => parseToolConfig(config, 'c.json')).toThrow(message)
  })

  it('refuses a command hook that passes a TOOLEXEC_ variable', () => {
    const config = { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'env', passEnv: ['TOOLEXEC_TOKEN'] }] }] } }
    expect(() => loadPolicy(config, 'c.json', ruleCommandSplitter)).toThrow(PolicyError)
    expect(() => loadPolicy(config, 'c.json', ruleCommandSplitter)).toThrow(/hooks\.PreToolUse command "env": TOOLEXEC_TOKEN/)
  })

  it('reads the global settings', () => {
    expect(parseToolConfig({ env: { A: '1' }, passEnv: ['B'] }, 'c.json').environment).toEqual({ env: { A: '1' }, passEnv: ['B'] })
  })
})
