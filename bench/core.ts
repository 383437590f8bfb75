/**
 * Pipeline overhead: 10,000 no-op read-only calls through executeSchedule (lookup,
 * validation, flags, hooks port, permission, timeout, serialization, events) against the
 * same handlers through a bare Promise.all, side by side in one process and run.
 */
import type { ToolEntry } from '../src/contracts/tool-entry.js'
import type { ExecutorEvent } from '../src/contracts/events.js'
import type { ToolCall } from '../src/contracts/tool-call.js'
import { createExecutor } from '../src/executor/executor.js'
import { InMemoryToolRegistry } from '../src/tools/registry.js'
import { NOOP_TOOL_NAME, noopTool } from './support/noop-tool.js'
import { createDenyingBroker } from '../src/permissions/brokers.js'
import { createModePermissionService } from '../src/permissions/mode-permission-service.js'

const CALLS = 10_000
const ROUNDS = 7

// The HTTP bench's no-op tool, with a deadline so that the timeout machinery is measured too.
const noop: ToolEntry = { ...noopTool, timeout: { kind: 'deadline', defaultMs: 30_000 } }

const calls: ToolCall[] = Array.from({ length: CALLS }, (_, n) => ({ id: `c${n}`, name: NOOP_TOOL_NAME, input: { n } }))
const executor = createExecutor({ permissions: createModePermissionService(), broker: createDenyingBroker(), registry: new InMemoryToolRegistry([noop]) })
const abortableTurn = new AbortController()

async function pipelineRound(): Promise<number> {
  const events: ExecutorEvent[] = []
  const started = performance.now()
  const outcome = await executor.executeSchedule(calls, { sessionId: 'bench', signal: abortableTurn.signal, emit: (event) => void events.push(event) })
  const elapsed = performance.now() - started
  if (outcome.results.some((result) => !result.success)) throw new Error('a bench call failed')
  return elapsed
}

async function bareRound(): Promise<number> {
  const context = { signal: abortableTurn.signal } as Parameters<typeof noop.handler>[1]
  const started = performance.now()
  await Promise.all(calls.map((call) => noop.handler(call.input as { n: number }, context)))
  return performance.now() - started
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

async function main(): Promise<void> {
  await pipelineRound()
  await bareRound()
  const pipeline: number[] = []
  const bare: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    pipeline.push(await pipelineRound())
    bare.push(await bareRound())
  }
  const pipelineMs = median(pipeline)
  const bareMs = median(bare)
  const overheadUs = ((pipelineMs - bareMs) * 1000) / CALLS
  console.log(`calls per round:        ${CALLS} (median of ${ROUNDS} rounds)`)
  console.log(`executeSchedule:        ${Math.round((CALLS / pipelineMs) * 1000).toLocaleString('en')} calls/s (${pipelineMs.toFixed(1)} ms)`)
  console.log(`bare Promise.all:       ${Math.round((CALLS / bareMs) * 1000).toLocaleString('en')} calls/s (${bareMs.toFixed(1)} ms)`)
  console.log(`ratio pipeline/bare:    ${(bareMs / pipelineMs).toFixed(4)}`)
  console.log(`overhead per call:      ${overheadUs.toFixed(2)} µs (target < 20 µs)`)
}

await main()
