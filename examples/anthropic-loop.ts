/**
 * An agent loop on the Anthropic Messages API (@anthropic-ai/sdk) whose tools toolexec runs.
 *
 *   ANTHROPIC_API_KEY=... node --import tsx examples/anthropic-loop.ts [--workspace DIR]
 *     [--approve allow|deny] [--model NAME] "what to do"
 *
 * toolexec's address and token come from TOOLEXEC_URL (default http://127.0.0.1:8787) and
 * TOOLEXEC_TOKEN; the model's from the SDK's own ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY.
 * Without --approve, each approval request is asked on the terminal.
 */
import Anthropic from '@anthropic-ai/sdk'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { closeTerminal, createSession, printable, toolexec, waitForResults, type Approve } from './toolexec-client.js'

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    workspace: { type: 'string', default: process.cwd() },
    approve: { type: 'string' },
    model: { type: 'string', default: 'claude-sonnet-4-6' },
    'max-tokens': { type: 'string', default: '4096' },
  },
})
if (flags.approve !== undefined && flags.approve !== 'allow' && flags.approve !== 'deny') throw new Error('--approve is allow or deny')
const approve: Approve = flags.approve
const prompt = positionals.join(' ') || 'List the files of this workspace and describe what you find.'

const anthropic = new Anthropic()
const sessionId = await createSession(path.resolve(flags.workspace))
const tools = await toolexec<Anthropic.Tool[]>('GET', '/tools?format=anthropic')
const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }]

for (;;) {
  const reply = await anthropic.messages.create({ model: flags.model, max_tokens: Number(flags['max-tokens']), tools, messages })
  messages.push({ role: 'assistant', content: reply.content })
  for (const block of reply.content) {
    if (block.type === 'text') console.log(block.text)
    if (block.type === 'tool_use') console.log(printable(`[tool] ${block.name} ${JSON.stringify(block.input)}`))
  }
  if (reply.stop_reason !== 'tool_use') break

  // The assistant's content as returned: toolexec runs its tool_use blocks, in order.
  const { scheduleId } = await toolexec<{ scheduleId: string }>('POST', '/schedules', { sessionId, anthropic: reply.content })
  const results = await waitForResults<{ message: Anthropic.MessageParam }>(sessionId, scheduleId, 'anthropic', approve)
  messages.push(results.message)
  if (results.stopTurn) {
    console.log(`[toolexec] the turn stops here: ${results.turnControl?.reason ?? 'turn control'}`)
    break
  }
}
closeTerminal()
