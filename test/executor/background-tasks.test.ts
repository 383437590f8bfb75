import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import type { BackgroundTask } from '../../src/contracts/ports.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { deferred } from '../support/schedule-tools.js'
import { createTestExecutor } from '../support/executor.js'

/** A background task that ends by itself after `ms`, or when cancelled. */
function timerTask(id: string, sessionId: string, ms: number): BackgroundTask & { cancelReason: string | undefined } {
  const end = deferred<string>()
  const timer = setTimeout(() => end.resolve('finished'), ms)
  const task = {
    id,
    sessionId,
    description: `timer ${id}`,
    done: end.promise,
    cancelReason: undefined as string | undefined,
    cancel(reason?: string) {
      clearTimeout(timer)
      task.cancelReason = reason
      end.resolve('cancelled')
    },
  }
  return task
}

/** A real process started elsewhere (a resumed run): done when it exits, cancelled by a signal. */
function processTask(id: string, sessionId: string): BackgroundTask & { exit: Promise<unknown[]> } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
  const exit = once(child, 'exit')
  return { id, sessionId, description: 'resumed run', done: exit, exit, cancel: () => void child.kill('SIGTERM') }
}

const newExecutor = () => createTestExecutor({ registry: new InMemoryToolRegistry([]) })
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('R1 trackExternalBackgroundTask', () => {
  it('R1 lists an adopted task under its own session only', () => {
    const executor = newExecutor()
    const first = timerTask('t1', 's1', 10_000)
    const info = executor.trackExternalBackgroundTask(first)
    executor.trackExternalBackgroundTask(timerTask('t2', 's2', 10_000))
    expect(info).toEqual({ id: 't1', sessionId: 's1', description: 'timer t1', external: true })
    expect(executor.backgroundTasks.list('s1')).toEqual([info])
    expect(executor.backgroundTasks.list('s2').map((t) => t.id)).toEqual(['t2'])
    expect(executor.backgroundTasks.list('s3')).toEqual([])
    expect(executor.backgroundTasks.list().map((t) => t.id)).toEqual(['t1', 't2'])
    executor.backgroundTasks.cancelSession('s1')
    executor.backgroundTasks.cancelSession('s2')
  })

  it('R1 cancels an adopted process through backgroundTasks.cancel and drops it once it is done', async () => {
    const executor = newExecutor()
    const task = processTask('run-1', 's1')
    executor.trackExternalBackgroundTask(task)
    expect(executor.backgroundTasks.list('s1').map((t) => t.id)).toEqual(['run-1'])
    expect(executor.backgroundTasks.cancel('run-1', 'user stop')).toBe(true)
    const [code, signal] = await task.exit
    expect([code, signal]).toEqual([null, 'SIGTERM'])
    await flush()
    expect(executor.backgroundTasks.list('s1')).toEqual([])
    expect(executor.backgroundTasks.cancel('run-1')).toBe(false)
  })

  it('R1 passes the reason to the task and drops a task that finished by itself', async () => {
    const executor = newExecutor()
    const cancelled = timerTask('c', 's', 10_000)
    const finishing = timerTask('f', 's', 5)
    executor.trackExternalBackgroundTask(cancelled)
    executor.trackExternalBackgroundTask(finishing)
    executor.backgroundTasks.cancel('c', 'turn ended')
    expect(cancelled.cancelReason).toBe('turn ended')
    expect(await finishing.done).toBe('finished')
    await flush()
    expect(executor.backgroundTasks.list('s')).toEqual([])
  })

  it('R1 drops a task whose done rejects, without an unhandled rejection', async () => {
    const executor = newExecutor()
    const failure = deferred<unknown>()
    executor.trackExternalBackgroundTask({ id: 'x', sessionId: 's', description: 'failing', done: failure.promise, cancel: () => {} })
    failure.reject(new Error('crashed'))
    await failure.promise.catch(() => {})
    await flush()
    expect(executor.backgroundTasks.list()).toEqual([])
  })

  it('R1 adopting the same task twice tracks it once', () => {
    const executor = newExecutor()
    const task = timerTask('t', 's', 10_000)
    executor.trackExternalBackgroundTask(task)
    executor.trackExternalBackgroundTask(task)
    expect(executor.backgroundTasks.list()).toHaveLength(1)
    expect(executor.backgroundTasks.get('t')).toBe(task)
    task.cancel()
  })

  it('R1 cancelSession cancels only that session', () => {
    const executor = newExecutor()
    const mine = timerTask('a', 's1', 10_000)
    const other = timerTask('b', 's2', 10_000)
    executor.trackExternalBackgroundTask(mine)
    executor.trackExternalBackgroundTask(other)
    expect(executor.backgroundTasks.cancelSession('s1', 'bye')).toBe(1)
    expect([mine.cancelReason, other.cancelReason]).toEqual(['bye', undefined])
    other.cancel()
  })
})
