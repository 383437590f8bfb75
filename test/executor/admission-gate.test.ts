import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { AdmissionGate, defaultAdmissionWidth } from '../../src/executor/admission-gate.js'

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve()
}

describe('AdmissionGate', () => {
  it('A8 defaults its width to max(1, min(16, availableParallelism() - 2))', () => {
    const expected = Math.max(1, Math.min(16, availableParallelism() - 2))
    expect(defaultAdmissionWidth()).toBe(expected)
    expect(new AdmissionGate().width).toBe(expected)
  })

  it.each([0, -1, 1.5, Number.NaN])('A8 rejects the width %s', (width) => {
    expect(() => new AdmissionGate(width)).toThrow(/positive integer/)
  })

  it('R22 never admits more than its width at once', async () => {
    const gate = new AdmissionGate(2)
    const admitted: number[] = []
    const releases = Array.from({ length: 5 }, (_, i) =>
      gate.acquire().then((release) => {
        admitted.push(i)
        return release
      }),
    )
    await flush()
    expect(admitted).toEqual([0, 1])
    expect(gate.active).toBe(2)
    expect(gate.queued).toBe(3)
    ;(await releases[0]!)()
    await flush()
    expect(admitted).toEqual([0, 1, 2])
    expect(gate.active).toBe(2)
    expect(gate.queued).toBe(2)
  })

  it('R22 admits waiters in FIFO order', async () => {
    const gate = new AdmissionGate(1)
    const order: string[] = []
    const first = await gate.acquire()
    const waiting = ['a', 'b', 'c', 'd'].map((name) =>
      gate.acquire().then((release) => {
        order.push(name)
        release()
      }),
    )
    first()
    await Promise.all(waiting)
    expect(order).toEqual(['a', 'b', 'c', 'd'])
    expect(gate.active).toBe(0)
    expect(gate.queued).toBe(0)
  })

  it('R22 makes release idempotent: a second call frees no extra slot', async () => {
    const gate = new AdmissionGate(1)
    const release = await gate.acquire()
    const second = gate.acquire()
    const third = gate.acquire()
    release()
    release()
    await flush()
    expect(gate.active).toBe(1)
    expect(gate.queued).toBe(1)
    ;(await second)()
    ;(await third)()
    expect(gate.active).toBe(0)
  })

  it('R22 rejects an abort while queued with the signal reason and removes the waiter', async () => {
    const gate = new AdmissionGate(1)
    const holder = await gate.acquire()
    const controller = new AbortController()
    const aborted = gate.acquire(controller.signal)
    const next = gate.acquire()
    expect(gate.queued).toBe(2)
    const reason = new Error('turn stopped')
    controller.abort(reason)
    await expect(aborted).rejects.toBe(reason)
    expect(gate.queued).toBe(1)
    holder()
    const release = await next
    expect(gate.active).toBe(1)
    release()
    expect(gate.active).toBe(0)
  })

  it('R22 rejects at once when the signal is already aborted', async () => {
    const gate = new AdmissionGate(1)
    const controller = new AbortController()
    controller.abort('gone')
    await expect(gate.acquire(controller.signal)).rejects.toBe('gone')
    expect(gate.active).toBe(0)
    expect(gate.queued).toBe(0)
  })

  it('R22 does not reject an admitted request when its signal aborts later', async () => {
    const gate = new AdmissionGate(1)
    const holder = await gate.acquire()
    const controller = new AbortController()
    const pending = gate.acquire(controller.signal)
    holder()
    const release = await pending
    controller.abort()
    expect(gate.active).toBe(1)
    release()
    expect(gate.active).toBe(0)
  })

  it('R22 drains a deep queue with aborted waiters in order', async () => {
    const gate = new AdmissionGate(1)
    const holder = await gate.acquire()
    const order: number[] = []
    const controllers: AbortController[] = []
    const waits = Array.from({ length: 5000 }, (_, i) => {
      const controller = new AbortController()
      controllers.push(controller)
      return gate.acquire(controller.signal).then(
        (release) => {
          order.push(i)
          release()
        },
        () => undefined,
      )
    })
    for (let i = 0; i < 5000; i += 3) controllers[i]!.abort()
    holder()
    await Promise.all(waits)
    const expected = Array.from({ length: 5000 }, (_, i) => i).filter((i) => i % 3 !== 0)
    expect(order).toEqual(expected)
    expect(gate.queued).toBe(0)
    expect(gate.active).toBe(0)
  })
})
