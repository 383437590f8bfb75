/**
 * An agent loop on the OpenAI API (openai) whose tools toolexec runs: Chat Completions by
 * default, the Responses API with --api responses.
 *
 *   OPENAI_API_KEY=... node --import tsx examples/openai-loop.ts [--api chat|responses]
 *     [--workspace DIR] [--approve allow|deny] [--model NAME] "what to do"
 *
 * toolexec's address and token come from TOOLEXEC_URL (default http://127.0.0.1:8787) and
 * TOOLEXEC_TOKEN; the model's from the SDK's own OPENAI_BASE_URL and OPENAI_API_KEY.
 * Without --approve, each approval request is asked on the terminal.
 */
import OpenAI from 'openai'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { closeTerminal, createSession, printable, toolexec, waitForResults, type Approve, type FormattedSchedule } from './toolexec-client.js'

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    api: { type: 'string', default: 'chat' },
    workspace: { type: 'string', default: process.cwd() },
    approve: { type: 'string' },
    model: { type: 'string', default: 'gpt-5.4' },
  },
})
if (flags.api !== 'chat' && flags.api !== 'responses') throw new Error('--api is chat or responses')
if (flags.approve !== undefined && flags.approve !== 'allow' && flags.approve !== 'deny') throw new Error('--approve is allow or deny')
const approve: Approve = flags.approve
const prompt = positionals.join(' ') || 'List the files of this workspace and describe what you find.'

const openai = new OpenAI()
const sessionId = await createSession(path.resolve(flags.workspace))
if (flags.api === 'chat') await chatLoop()
else await responsesLoop()
closeTerminal()

async function chatLoop(): Promise<void> {
  const tools = await toolexec<OpenAI.Chat.ChatCompletionTool[]>('GET', '/tools?format=openai-chat')
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }]
  for (;;) {
    const completion = await openai.chat.completions.create({ model: flags.model, tools, messages })
    const choice = completion.choices[0]
    if (choice === undefined) throw new Error('the completion has no choice')
    messages.push(choice.message)
    if (choice.message.content) console.log(choice.message.content)
    const toolCalls = choice.message.tool_calls ?? []
    for (const call of toolCalls) if (call.type === 'function') console.log(printable(`[tool] ${call.function.name} ${call.function.arguments}`))
    if (toolCalls.length === 0) break

    // The tool_calls as returned: a malformed `arguments` string fails only its own call.
    const { scheduleId } = await toolexec<{ scheduleId: string }>('POST', '/schedules', { sessionId, openaiChat: toolCalls })
    const results = await waitForResults<{ messages: OpenAI.Chat.ChatCompletionMessageParam[] }>(sessionId, scheduleId, 'openai-chat', approve)
    messages.push(...results.messages)
    if (stopsTheTurn(results)) break
  }
}

async function responsesLoop(): Promise<void> {
  const tools = await toolexec<OpenAI.Responses.Tool[]>('GET', '/tools?format=openai-responses')
  // The API keeps the conversation: each request sends only what is new since the previous response.
  let input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: prompt }]
  let previousResponseId: string | undefined
  for (;;) {
    const response = await openai.responses.create({ model: flags.model, tools, input, previous_response_id: previousResponseId ?? null })
    previousResponseId = response.id
    if (response.output_text) console.log(response.output_text)
    const toolCalls = response.output.filter((item) => item.type === 'function_call')
    for (const call of toolCalls) console.log(printable(`[tool] ${call.name} ${call.arguments}`))
    if (toolCalls.length === 0) break

    // The output items as returned: toolexec runs the function_call items, in order.
    const { scheduleId } = await toolexec<{ scheduleId: string }>('POST', '/schedules', { sessionId, openaiResponses: response.output })
    const results = await waitForResults<{ input: OpenAI.Responses.ResponseInputItem[] }>(sessionId, scheduleId, 'openai-responses', approve)
    input = results.input
    if (stopsTheTurn(results)) break
  }
}

function stopsTheTurn(results: FormattedSchedule): boolean {
  if (results.stopTurn) console.log(`[toolexec] the turn stops here: ${results.turnControl?.reason ?? 'turn control'}`)
  return results.stopTurn
}
