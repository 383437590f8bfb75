/**
 * Diagnostic for the HTTP bench (BENCH_STORE_TIMING=1): wraps the reads of one store's roles and
 * its commit to add up their calls and wall time, so a report can say which storage steps a call
 * pays for. A read counts until its answer; `commit` until the unit is durable, `commit on the
 * loop` only the part that holds the event loop (build, record, send); each kind of write a unit
 * records is counted as `write <role>.<method>` (its time is its unit's). On PostgreSQL,
 * `postgres round trips` and `postgres statements` count what the connection sent, the time
 * being that of the reads and units that sent them.
 */
import type { Store, UnitOfWork } from '../../src/contracts/store.js'
import { PostgresStore } from '../../src/storage/postgres/postgres-store.js'

export interface MethodTiming {
  calls: number
  ms: number
}

type Timings = Record<string, MethodTiming>
type Method = (...args: unknown[]) => unknown

const ROLES = ['sessions', 'schedules', 'events', 'approvals', 'rules', 'artifacts'] as const

export function timeStoreMethods(store: Store): () => Timings {
  const timings: Timings = {}
  const timingOf = (name: string): MethodTiming => (timings[name] ??= { calls: 0, ms: 0 })
  // Wall time of the operations that each are one round trip: every read, every unit that writes.
  const roundTripMs = { reads: 0, units: 0 }
  for (const role of ROLES) timeReads(store[role], role, timingOf, roundTripMs)
  timeCommits(store, timingOf, roundTripMs)
  const traffic = store instanceof PostgresStore ? trafficSince(store) : undefined
  return () => {
    const sent = traffic?.()
    if (sent === undefined) return timings
    const postgres = { 'postgres round trips': { calls: sent.roundTrips, ms: roundTripMs.reads + roundTripMs.units }, 'postgres statements': { calls: sent.statements, ms: roundTripMs.units } }
    return { ...timings, ...postgres }
  }
}

function trafficSince(store: PostgresStore): () => PostgresStore['traffic'] {
  const start = store.traffic
  return () => ({ roundTrips: store.traffic.roundTrips - start.roundTrips, statements: store.traffic.statements - start.statements })
}

function timeReads(reads: object, role: string, timingOf: (name: string) => MethodTiming, roundTripMs: { reads: number }): void {
  const target = reads as Record<string, unknown>
  for (const name of methodNames(reads)) {
    const method = target[name] as Method
    const timing = timingOf(`${role}.${name}`)
    target[name] = (...args: unknown[]): unknown => {
      const started = performance.now()
      return Promise.resolve(method.apply(reads, args)).finally(() => {
        const ms = performance.now() - started
        add(timing, ms)
        roundTripMs.reads += ms
      })
    }
  }
}

function timeCommits(store: Store, timingOf: (name: string) => MethodTiming, roundTripMs: { units: number }): void {
  const commit = store.commit.bind(store)
  const whole = timingOf('commit')
  const onLoop = timingOf('commit on the loop')
  store.commit = <T>(build: (unit: UnitOfWork) => T): Promise<T> => {
    let writes = 0
    const started = performance.now()
    const settled = commit((unit) => build(countingUnit(unit, timingOf, () => writes++)))
    add(onLoop, performance.now() - started)
    return settled.finally(() => {
      const ms = performance.now() - started
      add(whole, ms)
      if (writes > 0) roundTripMs.units += ms
    })
  }
}

/** The unit, each of its writes counted under its name before it is recorded. */
function countingUnit(unit: UnitOfWork, timingOf: (name: string) => MethodTiming, onWrite: () => void): UnitOfWork {
  const counted = (role: (typeof ROLES)[number]): object => {
    const writes = unit[role] as object
    const wrapped: Record<string, Method> = {}
    for (const name of methodNames(writes)) {
      const method = (writes as Record<string, Method>)[name] as Method
      wrapped[name] = (...args: unknown[]): unknown => {
        timingOf(`write ${role}.${name}`).calls++
        onWrite()
        return method.apply(writes, args)
      }
    }
    return wrapped
  }
  return Object.fromEntries(ROLES.map((role) => [role, counted(role)])) as unknown as UnitOfWork
}

/** A role object's methods: its own functions and those of its classes. */
function methodNames(object: object): string[] {
  const names = new Set<string>()
  for (let level: object | null = object; level !== null && level !== Object.prototype; level = Object.getPrototypeOf(level) as object | null) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name !== 'constructor' && typeof (object as Record<string, unknown>)[name] === 'function') names.add(name)
    }
  }
  return [...names]
}

function add(timing: MethodTiming, ms: number): void {
  timing.calls++
  timing.ms += ms
}
