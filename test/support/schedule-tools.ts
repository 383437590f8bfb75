/**
 * Fixtures for the executor's behaviour tests: tools that record what happens to them, a
 * barrier that proves overlap, and real in-memory logger, tracer and model implementations.
 */
import { Writable } from 'node:stream'
import { Type } from '@sinclair/typebox'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { pino, type Logger } from 'pino'
import type { ExecutorEvent } from '../../src/contracts/events.js'
import type { ToolFlags } from '../../src/contracts/flags.js'
import type { ModelClient, ModelRequest, ModelResponse, PermissionAnswer } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { SUBAGENT_TERMINAL } from '../../src/contracts/result.js'
import type { InMemoryPermissionBroker } from '../../src/permissions/brokers.js'

/** Accepts any object input, so fixtures can take whatever fields a test needs. */
export const ANY_OBJECT = Type.Object({}, { additionalProperties: true })

type Input = Record<string, unknown>

/** Fields a test overrides on a fixture. */
export type ToolExtras = Partial<ToolEntry<Input, unknown>>

/** A tool with read-only, concurrent-safe, scope-none defaults; `extra` overrides any field. */
export function makeTool<O>(name: string, handler: ToolEntry<Input, O>['handler'], extra: Partial<ToolEntry<Input, O>> = {}): ToolEntry {
  const entry: ToolEntry<Input, O> = {
    name,
    description: `${name} fixture`,
    inputSchema: ANY_OBJECT,
    readOnly: true,
    destructive: false,
    concurrentSafe: true,
    permission: { sideEffectScope: 'none' },
    handler,
    ...extra,
  }
  return entry
}

/** A promise settled by hand: a handler that is still running until the test says so. */
export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
  reject(error: unknown): void
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Resolves only once `size` parties have arrived; rejects after `timeoutMs` otherwise, so a
 * schedule that ran them one by one fails fast instead of hanging.
 */
export function createBarrier(size: number, timeoutMs = 1000): { arrive(): Promise<void> } {
  const all = deferred()
  let arrived = 0
  return {
    arrive() {
      arrived += 1
      if (arrived === size) all.resolve()
      const timer = setTimeout(() => all.reject(new Error(`barrier: ${arrived} of ${size} arrived`)), timeoutMs)
      return all.promise.finally(() => clearTimeout(timer))
    },
  }
}

/** Counts handlers in flight and remembers the peak. */
export function createConcurrencyProbe(): { enter(): void; leave(): void; readonly peak: number; readonly current: number } {
  let current = 0
  let peak = 0
  return {
    enter() {
      current += 1
      peak = Math.max(peak, current)
    },
    leave() {
      current -= 1
    },
    get peak() {
      return peak
    },
    get current() {
      return current
    },
  }
}

/** Read-only commands as A6 means them, reduced to what these tests use. */
const READ_ONLY_COMMANDS = /^(git (status|log|diff|show)|ls|cat|pwd)(\s|$)/

/** Bash-like: system scope and serial, unless its command is read-only (R40, A6). */
export function bashLikeTool(onRun?: (command: string) => void): ToolEntry {
  return makeTool(
    'Bash',
    (input) => {
      const command = String(input.command)
      onRun?.(command)
      return Promise.resolve(`ran ${command}`)
    },
    {
      readOnly: false,
      concurrentSafe: false,
      permission: { sideEffectScope: 'system' },
      inputSchema: Type.Object({ command: Type.String() }),
      resolveFlags(input): Partial<ToolFlags> {
        if (!READ_ONLY_COMMANDS.test(String(input.command))) return {}
        return { readOnly: true, sideEffectScope: 'none', concurrentSafe: true }
      },
    },
  )
}

/** TodoWrite-like: declared read-only, but its scope is the session (R3, A1). */
export function todoWriteLikeTool(name = 'TodoWrite', concurrentSafe = false): ToolEntry {
  return makeTool(name, () => Promise.resolve('todos saved'), { readOnly: true, concurrentSafe, permission: { sideEffectScope: 'session' } })
}

/** submit_result: serial, scope session, stops the turn on success (A1, A5). */
export function submitResultTool(onRun?: () => void): ToolEntry {
  return makeTool(
    'submit_result',
    () => {
      onRun?.()
      return Promise.resolve('result submitted')
    },
    { readOnly: false, concurrentSafe: false, permission: { sideEffectScope: 'session' }, timeout: { kind: 'none' }, turnControlOnSuccess: SUBAGENT_TERMINAL },
  )
}

/** A pino logger writing JSON lines into memory. */
export function memoryLogger(): { logger: Logger; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.length > 0) records.push(JSON.parse(line) as Record<string, unknown>)
      }
      callback()
    },
  })
  return { logger: pino({ level: 'debug' }, stream), records }
}

/** A real OpenTelemetry SDK tracer whose finished spans stay in memory. */
export function memoryTracer(): { provider: BasicTracerProvider; exporter: InMemorySpanExporter } {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  return { provider, exporter }
}

/** An in-process model whose answer takes `delayMs`; it gives up when its signal aborts. */
export function delayedModel(delayMs: number): ModelClient & { readonly calls: ModelRequest[] } {
  const calls: ModelRequest[] = []
  return {
    calls,
    complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
      calls.push(request)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ text: `answer to ${request.messages.length} message(s)` }), delayMs)
        signal.addEventListener('abort', () => {
          clearTimeout(timer)
          reject(signal.reason as Error)
        })
      })
    },
  }
}

/** An event sink that records every event and answers each PermissionRequested at once. */
export function answeringSink(broker: InMemoryPermissionBroker, answer: PermissionAnswer): { events: ExecutorEvent[]; emit: (event: ExecutorEvent) => void } {
  const events: ExecutorEvent[] = []
  return {
    events,
    emit(event) {
      events.push(event)
      if (event.type === 'PermissionRequested') broker.answer(event.permissionId, answer)
    },
  }
}

export function eventsOfType<T extends ExecutorEvent['type']>(events: readonly ExecutorEvent[], type: T): Extract<ExecutorEvent, { type: T }>[] {
  return events.filter((event): event is Extract<ExecutorEvent, { type: T }> => event.type === type)
}
