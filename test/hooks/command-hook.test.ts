import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { HookEventName, HookOutput, HookPayload } from '../../src/contracts/ports.js'
import { DEFAULT_HOOK_TIMEOUT_MS, hookTimeoutMs, runCommandHook } from '../../src/hooks/command-hook.js'
import { delay, tempDir } from '../support/permission-tools.js'
import { bashHook, hookFailure as failure, nodeHook } from '../support/hook-scripts/hooks.js'

const NEVER = new AbortController().signal

async function payload(extra: Partial<HookPayload> = {}): Promise<HookPayload> {
  return {
    hookEventName: 'PreToolUse',
    sessionId: 'ses-1',
    callId: 'call-1',
    toolName: 'Bash',
    toolInput: { command: 'npm test' },
    workspace: await tempDir('hook-ws'),
    ...extra,
  }
}

function run(command: string, event: HookEventName = 'PreToolUse', input?: HookPayload, timeoutMs?: number, signal = NEVER): Promise<HookOutput | undefined> {
  return (input === undefined ? payload({ hookEventName: event }) : Promise.resolve(input)).then((resolved) =>
    runCommandHook(timeoutMs === undefined ? { type: 'command', command } : { type: 'command', command, timeoutMs }, event, resolved, signal),
  )
}

describe('command hooks: answers on exit 0', () => {
  it.each<[string, unknown, HookOutput]>([
    ['allow at the top level', { permissionDecision: 'allow', reason: 'fine' }, { permissionDecision: 'allow', reason: 'fine' }],
    ['deny at the top level', { permissionDecision: 'deny', reason: 'no' }, { permissionDecision: 'deny', reason: 'no' }],
    ['ask at the top level', { permissionDecision: 'ask' }, { permissionDecision: 'ask' }],
    ['updatedInput', { updatedInput: { command: 'npm test -- --ci' } }, { updatedInput: { command: 'npm test -- --ci' } }],
    ['additionalContext', { additionalContext: 'CI is slow today' }, { additionalContext: 'CI is slow today' }],
    [
      "Claude Code's hookSpecificOutput",
      { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not on main', updatedInput: { command: 'x' }, additionalContext: 'see docs' } },
      { permissionDecision: 'deny', reason: 'not on main', updatedInput: { command: 'x' }, additionalContext: 'see docs' },
    ],
  ])('R14 a node script: %s', async (_case, reply, expected) => {
    expect(await run(nodeHook(reply))).toEqual(expected)
  })

  it("R14 an unchanged Claude Code bash script approves in hookSpecificOutput's shape", async () => {
    expect(await run(bashHook('guard.sh'))).toEqual({ permissionDecision: 'allow', reason: 'guard.sh approved it' })
  })

  it('R29 plain text on stdout is additional context; nothing on stdout is no answer', async () => {
    const input = await payload({ toolName: 'Edit' })
    expect(await run(bashHook('context.sh'), 'PreToolUse', input)).toEqual({ additionalContext: `Style guide applies to Edit in ${input.workspace}` })
    expect(await run(nodeHook(''))).toBeUndefined()
  })

  it('keeps characters whole across the pipe reads of a long answer', async () => {
    // 300,000 bytes of three-byte characters: a 64 KiB read ends inside one.
    const context = '€'.repeat(100_000)
    expect(await run(`node -e "process.stdout.write('€'.repeat(100000))"`)).toEqual({ additionalContext: context })
    expect(await run(`node -e "process.stdout.write(JSON.stringify({ additionalContext: '€'.repeat(100000) }))"`)).toEqual({ additionalContext: context })
  })

  it('R13 the hook gets one JSON object on stdin with the call, its resolved input and the workspace, in the workspace', async () => {
    const record = path.join(await tempDir('hook-record'), 'input.json')
    const input = await payload({ hookEventName: 'PostToolUseFailure', toolInput: { command: 'sleep 9' }, error: 'Tool execution cancelled', isInterrupt: true })
    await run(nodeHook('', { record }), 'PostToolUseFailure', input)
    expect(JSON.parse(await readFile(record, 'utf8'))).toEqual({
      hook_event_name: 'PostToolUseFailure',
      session_id: 'ses-1',
      tool_use_id: 'call-1',
      tool_name: 'Bash',
      tool_input: { command: 'sleep 9' },
      cwd: input.workspace,
      hookEventName: 'PostToolUseFailure',
      sessionId: 'ses-1',
      callId: 'call-1',
      toolName: 'Bash',
      toolInput: { command: 'sleep 9' },
      workspace: input.workspace,
      error: 'Tool execution cancelled',
      is_interrupt: true,
      isInterrupt: true,
    })
    const context = await run(nodeHook('{"additionalContext":"{{cwd}} {{tool_use_id}}"}'), 'PreToolUse', input)
    expect(context).toEqual({ additionalContext: `${input.workspace} call-1` })
  })

  it('R29 a PostToolUse hook gets the result as tool_response', async () => {
    const input = await payload({ hookEventName: 'PostToolUse', toolResult: { success: true, output: 'ok', modelContent: 'ok' } })
    expect(await run(nodeHook('{"additionalContext":"saw {{tool_response}}"}'), 'PostToolUse', input)).toEqual({ additionalContext: 'saw ok' })
  })
})

describe('command hooks: exit codes', () => {
  it.each<[HookEventName, HookOutput]>([
    ['PreToolUse', { permissionDecision: 'deny', reason: 'Blocked by guard.sh: rm -rf is not allowed here' }],
    ['PermissionRequest', { decision: 'deny', message: 'Blocked by guard.sh: rm -rf is not allowed here' }],
    ['PostToolUse', { decision: 'block', reason: 'Blocked by guard.sh: rm -rf is not allowed here' }],
    ['PostToolUseFailure', { additionalContext: 'Blocked by guard.sh: rm -rf is not allowed here' }],
  ])('R14 exit code 2 in %s blocks with stderr as the reason', async (event, expected) => {
    const input = await payload({ hookEventName: event, toolInput: { command: 'rm -rf build' } })
    expect(await run(bashHook('guard.sh'), event, input)).toEqual(expected)
  })

  it('R14 exit code 2 with nothing on stderr blocks with a reason naming the hook', async () => {
    const command = nodeHook('', { exitCode: 2 })
    const output = await run(`${command} 2>/dev/null`)
    expect(output).toEqual({ permissionDecision: 'deny', reason: `Blocked by hook: ${command} 2>/dev/null` })
  })

  it('R14 any other exit code is a hook error with the code and stderr, whatever stdout says', async () => {
    const crash = await failure(run(bashHook('crash.sh')))
    expect(crash.message).toBe('Hook exited with code 3: hook crashed: cannot reach the policy server')
    const node = await failure(run(nodeHook({ permissionDecision: 'allow' }, { exitCode: 1 })))
    expect(node.message).toBe('Hook exited with code 1: reply.mjs exits with 1')
  })

  it('R14 JSON that does not parse is a hook error', async () => {
    expect((await failure(run(nodeHook('{"permissionDecision":')))).message).toBe('Hook printed invalid JSON: {"permissionDecision":')
  })

  it('R14 a hook that cannot start is a hook error, not a crash', async () => {
    expect((await failure(run('/nonexistent/hook-binary'))).message).toMatch(/^Hook exited with code 127: .*nonexistent/)
  })
})

describe('command hooks: time limits', () => {
  it('R14 a hook that hangs past its timeout fails as timed out, and its whole process group is killed', async () => {
    const pidFile = path.join(await tempDir('hook-pid'), 'pid')
    const started = Date.now()
    const error = await failure(run(bashHook('hang.sh', pidFile), 'PreToolUse', undefined, 300))
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(error.timedOut).toBe(true)
    expect(error.message).toBe('Hook timed out after 300ms')
    const pid = Number(await readFile(pidFile, 'utf8'))
    await delay(50)
    expect(() => process.kill(pid, 0)).toThrow()
  })

  it('answers when the hook exits, though a process it left in the background still holds its stdout', async () => {
    const started = Date.now()
    expect(await run('sleep 5 & echo started a watcher', 'PreToolUse', undefined, 4_000)).toEqual({ additionalContext: 'started a watcher' })
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('R23 an aborted call stops its hook at once', async () => {
    const controller = new AbortController()
    const pending = run(bashHook('hang.sh'), 'PreToolUse', undefined, 10_000, controller.signal)
    setTimeout(() => controller.abort(), 100)
    expect((await failure(pending)).message).toBe('Hook aborted')
  })

  it.each([
    [{}, DEFAULT_HOOK_TIMEOUT_MS],
    [{ timeoutMs: 250 }, 250],
    [{ timeout: 2 }, 2_000],
    [{ timeout: 2, timeoutMs: 10 }, 10],
  ])('R14 the limit of %j is %i ms (default 60 s; Claude Code writes seconds)', (config, expected) => {
    expect(hookTimeoutMs(config)).toBe(expected)
  })
})
