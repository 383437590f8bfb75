/**
 * The example agent loops (examples/anthropic-loop.ts, examples/openai-loop.ts), run unmodified
 * as child processes against a real toolexec server (src/main.ts, with a token) and fake model
 * APIs on 127.0.0.1 that speak each API's HTTP wire format (the SDKs' base URL pointed at them).
 * The scripted conversation: two parallel Reads, a Write that asks and is allowed (by
 * --approve, or by "y" typed at the terminal prompt), a malformed call next to a valid one, a
 * Bash whose output is saved as an artifact, a Read of a PNG, and a final answer. At every turn
 * the fake server compares what the SDK sent back with toolexec's record of each call: the
 * modelContent byte for byte, the ids, the order, the error flags and the images.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FINAL_ANSWER, getJson, WORKSPACE_FILES, WRITTEN_FILE, WRITTEN_TEXT, type ToolexecAccess } from '../support/agent-script.js'
import { startFakeAnthropic, type FakeModelServer } from '../support/fake-anthropic.js'
import { startFakeOpenAI } from '../support/fake-openai.js'
import { startMain, type MainChild } from '../support/main-process.js'
import { tempDir, tempDirSync } from '../support/temp-dirs.js'
import { textOf } from '../support/model-text.js'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const TOKEN = 'agent-loops-token-7Hq2LmX9'
const RUN_TIMEOUT_MS = 90_000

let server: MainChild
let toolexec: ToolexecAccess

beforeAll(async () => {
  server = await startMain(tempDirSync('agent-loops'), 1_000, { TOOLEXEC_TOKEN: TOKEN })
  toolexec = { url: server.url, token: TOKEN }
}, 60_000)

afterAll(async () => {
  server?.child.kill('SIGKILL')
  await server?.exited
})

interface LoopRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly promptsAnswered: number
}

/** Runs an example loop to its end; with `answerPrompts`, types "y" at each approval prompt (after `onPrompt`). */
async function runLoop(script: string, args: readonly string[], modelEnv: Record<string, string>, answerPrompts: boolean, onPrompt: () => Promise<void> = async () => {}): Promise<LoopRun> {
  const env: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: '', TOOLEXEC_URL: toolexec.url, TOOLEXEC_TOKEN: TOKEN, ...modelEnv }
  for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI)_/.test(name) && !(name in modelEnv)) delete env[name]
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let promptsAnswered = 0
  let answering = Promise.resolve()
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
    const prompts = stdout.split('[y/N] ').length - 1
    for (; answerPrompts && promptsAnswered < prompts; promptsAnswered++) answering = answering.then(onPrompt).then(() => void child.stdin.write('y\n'))
  })
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS - 5_000)
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  clearTimeout(timer)
  await answering
  return { code, stdout, stderr, promptsAnswered }
}

async function workspaceWithFiles(): Promise<string> {
  const workspace = await tempDir('agent-loop-workspace')
  for (const [name, content] of Object.entries(WORKSPACE_FILES)) await writeFile(path.join(workspace, name), content)
  return workspace
}

interface HistoryEntry {
  callId: string
  isError: boolean
  modelContent: string | { type: string }[]
}

/** What toolexec recorded proves the script covered what it claims: a failed malformed call, an artifact envelope (R36), an image. */
async function expectTheScenarioHappened(fake: FakeModelServer): Promise<void> {
  const { sessions } = await getJson<{ sessions: { id: string }[] }>(toolexec, '/sessions')
  const entries = new Map<string, HistoryEntry>()
  for (const session of sessions) {
    for (const entry of (await getJson<{ entries: HistoryEntry[] }>(toolexec, `/sessions/${session.id}/history`)).entries) entries.set(entry.callId, entry)
  }
  const [reads, [write] = [], [malformed, valid] = [], [bash] = [], [image] = []] = fake.turns
  for (const call of [...(reads ?? []), write, valid]) expect(entries.get(call?.id ?? '')?.isError, `${call?.name} ${call?.id}`).toBe(false)
  expect(entries.get(malformed?.id ?? '')?.isError).toBe(true)
  const bashText = textOf(entries.get(bash?.id ?? '')?.modelContent)
  expect(bashText.startsWith('<persisted-output>\nOutput too large') && bashText.includes('Full output saved to'), bashText.slice(0, 300)).toBe(true)
  expect(entries.get(image?.id ?? '')?.modelContent).toEqual([expect.objectContaining({ type: 'text' }), expect.objectContaining({ type: 'image' })])
}

async function expectTheConversationRan(fake: FakeModelServer, run: LoopRun, workspace: string): Promise<void> {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
  expect(fake.mismatches).toEqual([])
  expect(fake.turnsServed).toEqual([0, 1, 2, 3, 4, 5])
  expect(run.stdout).toContain(FINAL_ANSWER)
  // The Write's text has escape sequences: the tool line and the prompt show them escaped.
  // eslint-disable-next-line no-control-regex -- the control characters a terminal would act on are what the test looks for
  expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
  expect(await readFile(path.join(workspace, WRITTEN_FILE), 'utf8')).toBe(WRITTEN_TEXT)
  await expectTheScenarioHappened(fake)
}

describe('examples/anthropic-loop.ts on @anthropic-ai/sdk against a fake Messages API', () => {
  for (const approval of ['flag', 'prompt'] as const) {
    it(
      `runs the scripted conversation to its final answer, approvals by ${approval === 'flag' ? '--approve=allow' : 'the terminal prompt'}`,
      async () => {
        const fake = await startFakeAnthropic(toolexec)
        try {
          const workspace = await workspaceWithFiles()
          const args = ['--workspace', workspace, ...(approval === 'flag' ? ['--approve=allow'] : []), 'Work through the files.']
          const run = await runLoop('examples/anthropic-loop.ts', args, { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'sk-ant-test-key' }, approval === 'prompt')
          await expectTheConversationRan(fake, run, workspace)
          if (approval === 'prompt') expect(run.promptsAnswered).toBeGreaterThanOrEqual(1)
          else expect(run.stdout).not.toContain('[y/N]')
        } finally {
          await fake.close()
        }
      },
      RUN_TIMEOUT_MS,
    )
  }
})

describe('examples/openai-loop.ts on openai against a fake OpenAI API', () => {
  const runs = [
    { api: 'chat', approval: 'flag' },
    { api: 'responses', approval: 'prompt' },
  ] as const
  for (const { api, approval } of runs) {
    it(
      `runs the scripted conversation on --api ${api} to its final answer, approvals by ${approval === 'flag' ? '--approve=allow' : 'the terminal prompt'}`,
      async () => {
        const fake = await startFakeOpenAI(toolexec)
        try {
          const workspace = await workspaceWithFiles()
          const args = ['--api', api, '--workspace', workspace, ...(approval === 'flag' ? ['--approve=allow'] : []), 'Work through the files.']
          const run = await runLoop('examples/openai-loop.ts', args, { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-test-key' }, approval === 'prompt')
          await expectTheConversationRan(fake, run, workspace)
          if (approval === 'prompt') expect(run.promptsAnswered).toBeGreaterThanOrEqual(1)
          else expect(run.stdout).not.toContain('[y/N]')
        } finally {
          await fake.close()
        }
      },
      RUN_TIMEOUT_MS,
    )
  }
})

describe('a result that stops the turn (R30)', () => {
  const submit = (id: string) => [[{ id, name: 'submit_result', input: { result: 'the report' } }]]
  const loops = [
    {
      script: 'examples/anthropic-loop.ts',
      start: () => startFakeAnthropic(toolexec, submit('toolu_01submit')),
      env: (url: string) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-test-key' }),
    },
    { script: 'examples/openai-loop.ts', start: () => startFakeOpenAI(toolexec, submit('call_submit')), env: (url: string) => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: 'sk-test-key' }) },
  ]
  for (const loop of loops) {
    it(
      `${loop.script} ends after submit_result's result without calling the model again`,
      async () => {
        const fake = await loop.start()
        try {
          const run = await runLoop(loop.script, ['--workspace', await tempDir('agent-loop-workspace'), '--approve=allow', 'Report.'], loop.env(fake.url), false)
          expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
          expect(fake.turnsServed).toEqual([0])
          expect(fake.mismatches).toEqual([])
          expect(run.stdout).toContain('[toolexec] the turn stops here')
          expect(run.stdout).not.toContain(FINAL_ANSWER)
        } finally {
          await fake.close()
        }
      },
      RUN_TIMEOUT_MS,
    )
  }
})

describe('an approval decided elsewhere while the terminal prompt waits', () => {
  it(
    'examples/anthropic-loop.ts takes the 409 of its late answer as decided and goes on to the final answer',
    async () => {
      const fake = await startFakeAnthropic(toolexec)
      try {
        const workspace = await workspaceWithFiles()
        const denyFirst = async (): Promise<void> => {
          const { requests } = await getJson<{ requests: { id: string; sessionId: string }[] }>(toolexec, '/permissions?status=pending')
          for (const request of requests) {
            const response = await fetch(`${toolexec.url}/permissions/${request.id}`, {
              method: 'POST',
              headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
              body: JSON.stringify({ decision: 'deny', message: 'decided by another client' }),
            })
            expect(response.status).toBe(200)
          }
        }
        const run = await runLoop(
          'examples/anthropic-loop.ts',
          ['--workspace', workspace, 'Work through the files.'],
          { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'sk-ant-test-key' },
          true,
          denyFirst,
        )
        expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
        expect(run.stdout).toContain('[toolexec] Write: already decided')
        expect(fake.mismatches).toEqual([])
        expect(fake.turnsServed).toEqual([0, 1, 2, 3, 4, 5])
        expect(run.stdout).toContain(FINAL_ANSWER)
        expect(existsSync(path.join(workspace, WRITTEN_FILE))).toBe(false)
      } finally {
        await fake.close()
      }
    },
    RUN_TIMEOUT_MS,
  )
})
