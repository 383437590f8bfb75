import { describe, expect, it } from 'vitest'
import type { HookDefinition, HooksConfig } from '../../src/contracts/hook-config.js'
import type { HookEventName, HookPayload } from '../../src/contracts/ports.js'
import { configHooks, createConfigHookRunner, hookName } from '../../src/hooks/config-hook-runner.js'
import { runPreToolUse } from '../../src/executor/hook-flow.js'
import { collectEvents } from '../support/tools.js'
import { tempDir } from '../support/permission-tools.js'
import { bashHook, nodeHook } from '../support/hook-scripts/hooks.js'

const NEVER = new AbortController().signal

async function payload(toolName = 'Bash', event: HookEventName = 'PreToolUse'): Promise<HookPayload> {
  return { hookEventName: event, sessionId: 'ses-cfg', callId: 'call-1', toolName, toolInput: { command: 'make' }, workspace: await tempDir('cfg-hooks') }
}

const command = (line: string, extra: Partial<HookDefinition> = {}): HookDefinition => ({ type: 'command', command: line, ...extra }) as HookDefinition

describe('hooks from the config file', () => {
  it('R12 lists every hook of every event and group, named by its type and target', () => {
    const long = `echo ${'x'.repeat(100)}`
    const config: HooksConfig = {
      PreToolUse: [{ matcher: 'Bash', hooks: [command('a.sh'), { type: 'http', url: 'http://127.0.0.1:9/pre' }] }],
      PostToolUse: [{ hooks: [command(long)] }],
    }
    expect(configHooks(config).map((hook) => [hook.event, hook.matcher, hook.name])).toEqual([
      ['PreToolUse', 'Bash', 'command: a.sh'],
      ['PreToolUse', 'Bash', 'http: http://127.0.0.1:9/pre'],
      ['PostToolUse', undefined, `command: ${long.slice(0, 77)}...`],
    ])
    expect(hookName(command(long))).toHaveLength(`command: `.length + 80)
  })

  it.each([
    ['*', 'Anything', true],
    ['Bash|Edit', 'Edit', true],
    ['Bash|Edit', 'Write', false],
    ['mcp__github__.*', 'mcp__github__create_issue', true],
    ['mcp__github__.*', 'mcp__gitlab__x', false],
    ['Web.*', 'WebFetch', true],
  ])('R12 the matcher %s for %s: %s', (matcher, toolName, expected) => {
    const runner = createConfigHookRunner({ PreToolUse: [{ matcher, hooks: [command('true')] }] })
    expect(runner.has('PreToolUse', toolName)).toBe(expected)
    expect(runner.has('PostToolUse', toolName)).toBe(false)
  })

  it('R14 two hooks that disagree run in parallel and merge deny over allow, contexts in order, last updatedInput (A11)', async () => {
    const runner = createConfigHookRunner({
      PreToolUse: [
        { matcher: 'Bash', hooks: [command(nodeHook({ permissionDecision: 'allow', additionalContext: 'first', updatedInput: { command: 'make one' } }, { delayMs: 400 }))] },
        { matcher: '*', hooks: [command(nodeHook({ permissionDecision: 'deny', reason: 'second says no', additionalContext: 'second', updatedInput: { command: 'make two' } }, { delayMs: 400 }))] },
      ],
    })
    const { events, emit } = collectEvents()
    const started = Date.now()
    const outcome = await runPreToolUse({ hooks: runner, payload: await payload(), signal: NEVER, emit })
    expect(Date.now() - started).toBeLessThan(1_500)
    expect(outcome).toMatchObject({ decision: 'deny', reason: 'second says no', contexts: ['first', 'second'], updatedInput: { command: 'make two' } })
    expect(events.map((event) => event.type).sort()).toEqual(['HookRunBlocked', 'HookRunCompleted', 'HookRunStarted', 'HookRunStarted'])
  })

  it('R14 every run is reported: started, then completed, blocked or failed, with the hook and the reason', async () => {
    const runner = createConfigHookRunner({
      PreToolUse: [{ hooks: [command(bashHook('guard.sh')), command(bashHook('crash.sh')), command(nodeHook({ permissionDecision: 'ask' }))] }],
    })
    const { events, emit } = collectEvents()
    const input = { ...(await payload()), toolInput: { command: 'rm -rf /' } }
    const outputs = await runner.run('PreToolUse', input, NEVER, emit)
    // A hook is named by its command cut to 80 characters: the script's path depends on where the checkout lies.
    const guard = hookName(command(bashHook('guard.sh')))
    expect(outputs).toEqual([
      { permissionDecision: 'deny', reason: 'Blocked by guard.sh: rm -rf is not allowed here', hook: guard },
      { permissionDecision: 'ask', hook: hookName(command(nodeHook({ permissionDecision: 'ask' }))) },
    ])
    const ends = events.filter((event) => event.type !== 'HookRunStarted')
    expect(events.filter((event) => event.type === 'HookRunStarted')).toHaveLength(3)
    expect(ends).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'HookRunBlocked', hook: guard, reason: 'Blocked by guard.sh: rm -rf is not allowed here', hookEvent: 'PreToolUse', callId: 'call-1', sessionId: 'ses-cfg' }),
        expect.objectContaining({ type: 'HookRunFailed', error: 'Hook exited with code 3: hook crashed: cannot reach the policy server' }),
        expect.objectContaining({ type: 'HookRunCompleted', output: { permissionDecision: 'ask' } }),
      ]),
    )
  })

  it('R14 a PreToolUse hook that hangs past its timeout falls through: a failed run and no decision', async () => {
    const runner = createConfigHookRunner({ PreToolUse: [{ hooks: [command(bashHook('hang.sh'), { timeoutMs: 300 })] }] })
    const { events, emit } = collectEvents()
    const outcome = await runPreToolUse({ hooks: runner, payload: await payload(), signal: NEVER, emit })
    expect(outcome.decision).toBeUndefined()
    expect(events.at(-1)).toMatchObject({ type: 'HookRunFailed', error: 'Hook timed out after 300ms' })
  })

  it('R14 a failClosed PreToolUse hook that times out or crashes denies, naming the hook and why', async () => {
    const hang = bashHook('hang.sh')
    const runner = createConfigHookRunner({
      PreToolUse: [{ hooks: [command(hang, { timeoutMs: 300, failClosed: true }), command(bashHook('crash.sh'), { failClosed: true })] }],
    })
    const { events, emit } = collectEvents()
    const outcome = await runPreToolUse({ hooks: runner, payload: await payload(), signal: NEVER, emit })
    expect(outcome.decision).toBe('deny')
    expect(outcome.reason).toBe(`PreToolUse hook ${hookName(command(hang))} failed and is marked failClosed: Hook timed out after 300ms`)
    expect(events.filter((event) => event.type === 'HookRunBlocked')).toHaveLength(2)
  })

  it('R24 failClosed only changes PreToolUse: a failing post hook stays a non-blocking error', async () => {
    const runner = createConfigHookRunner({ PostToolUse: [{ hooks: [command(bashHook('crash.sh'), { failClosed: true })] }] })
    const { events, emit } = collectEvents()
    expect(await runner.run('PostToolUse', await payload('Bash', 'PostToolUse'), NEVER, emit)).toEqual([])
    expect(events.map((event) => event.type)).toEqual(['HookRunStarted', 'HookRunFailed'])
  })
})
