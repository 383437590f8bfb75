import { describe, expect, it } from 'vitest'
import { ExecutorEventSchema } from '../../src/contracts/events.js'
import { EVENT_POLICY, frameMayWait } from '../../src/sessions/event-policy.js'

const SCHEMA_TYPES = ExecutorEventSchema.anyOf.map((schema) => schema.properties.type.const as string).sort()

describe('the event policy table', () => {
  it('has one row for each event type of the contract, and no other', () => {
    expect(Object.keys(EVENT_POLICY).sort()).toEqual(SCHEMA_TYPES)
  })

  it('the executor waits for the commit of every event but batch boundaries and results, which share a later one', () => {
    const unawaited = Object.entries(EVENT_POLICY)
      .filter(([, policy]) => !policy.awaited)
      .map(([type]) => type)
    expect(unawaited.sort()).toEqual(['BatchCompleted', 'BatchStarted', 'ToolCallResult'])
  })

  it('sends a frame of a type it does not know at once', () => {
    expect(frameMayWait('ToolCallProgress')).toBe(true)
    expect(frameMayWait('ToolCallResult')).toBe(false)
    expect(frameMayWait('toString')).toBe(false)
    expect(frameMayWait('NoSuchEvent')).toBe(false)
  })
})
