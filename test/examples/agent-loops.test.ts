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
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FINAL_ANSWER, getJson, WORKSPACE_FILES, WRITTEN_FILE, WRITTEN_TEXT, type ToolexecAccess } from '../support/agent-script.js'
import { startFakeAnthropic, type FakeModelServer } from '../support/fake-anthropic.js'
import { startFakeOpenAI } from '../support/fake-openai.js'
import { startMain, type MainChild } from '../support/main-process.js'
import { tempDir, tempDirSync } from '../support/temp-dirs.js'

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

/** Runs an example loop to its end; with `answerPrompts`, types "y" at each approval prompt. */
async function runLoop(script: string, args: readonly string[], modelEnv: Record<string, string>, answerPrompts: boolean): Promise<LoopRun> {
  const env: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: '', TOOLEXEC_URL: toolexec.url, TOOLEXEC_TOKEN: TOKEN, ...modelEnv }
  for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI)_/.test(name) && !(name in modelEnv)) delete env[name]
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let promptsAnswered = 0
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
    const prompts = stdout.split('[y/N] ').length - 1
    for (; answerPrompts && promptsAnswered < prompts; promptsAnswered++) child.stdin.write('y\n')
  })
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS - 5_000)
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  clearTimeout(timer)
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
  const bashText = String(entries.get(bash?.id ?? '')?.modelContent)
  expect(bashText.startsWith('<persisted-output>\nOutput too large') && bashText.includes('Full output saved to'), bashText.slice(0, 300)).toBe(true)
  expect(entries.get(image?.id ?? '')?.modelContent).toEqual([expect.objectContaining({ type: 'text' }), expect.objectContaining({ type: 'image' })])
}

async function expectTheConversationRan(fake: FakeModelServer, run: LoopRun, workspace: string): Promise<void> {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' })
  expect(fake.mismatches).toEqual([])
  expect(fake.turnsServed).toEqual([0, 1, 2, 3, 4, 5])
  expect(run.stdout).toContain(FINAL_ANSWER)
  expect(await readFile(path.join(workspace, WRITTEN_FILE), 'utf8')).toBe(WRITTEN_TEXT)
  await expectTheScenarioHappened(fake)
}

describe('examples/anthropic-loop.ts on @anthropic-ai/sdk against a fake Messages API', () => {
  for (const approval of ['flag', 'prompt'] as const) {
    it(`runs the scripted conversation to its final answer, approvals by ${approval === 'flag' ? '--approve=allow' : 'the terminal prompt'}`, async () => {
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
    }, RUN_TIMEOUT_MS)
  }
})

describe('examples/openai-loop.ts on openai against a fake OpenAI API', () => {
  const runs = [
    { api: 'chat', approval: 'flag' },
    { api: 'responses', approval: 'prompt' },
  ] as const
  for (const { api, approval } of runs) {
    it(`runs the scripted conversation on --api ${api} to its final answer, approvals by ${approval === 'flag' ? '--approve=allow' : 'the terminal prompt'}`, async () => {
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
    }, RUN_TIMEOUT_MS)
  }
})
