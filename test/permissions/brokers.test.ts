import { describe, expect, it } from 'vitest'
import type { PermissionAnswer, PermissionRequest } from '../../src/contracts/ports.js'
import { DENIED_WITHOUT_CLIENT } from '../../src/contracts/permission-outcomes.js'
import { InMemoryPermissionBroker, createDenyingBroker } from '../../src/permissions/brokers.js'
import { createPermissionTicket } from '../../src/permissions/permission-ticket.js'

function request(permissionId: string, sessionId = 's1'): PermissionRequest {
  return { permissionId, sessionId, callId: `call-${permissionId}`, toolName: 'Write', input: {}, riskLevel: 'medium', reason: 'Tool Write requires approval' }
}

const ALLOW: PermissionAnswer = { decision: 'allow', decidedBy: 'client' }
const DENY: PermissionAnswer = { decision: 'deny', decidedBy: 'client', message: 'no' }
const HOOK_DENY: PermissionAnswer = { decision: 'deny', decidedBy: 'hook' }

describe('R16 permission tickets', () => {
  it('R16 the first settle wins and later ones return false', async () => {
    const ticket = createPermissionTicket(request('p1'))
    expect(ticket.settled).toBeUndefined()
    expect(ticket.settle(HOOK_DENY)).toBe(true)
    expect(ticket.settle(ALLOW)).toBe(false)
    expect(ticket.settled).toEqual(HOOK_DENY)
    expect(await ticket.answer).toEqual(HOOK_DENY)
  })
})

describe('R16 InMemoryPermissionBroker', () => {
  it('R16 answer() reports settled, then same for the same decision and conflict for the other', async () => {
    const broker = new InMemoryPermissionBroker()
    const ticket = broker.open(request('p1'))
    expect(broker.answer('p1', ALLOW)).toEqual({ kind: 'settled', answer: ALLOW })
    expect(await ticket.answer).toEqual(ALLOW)
    expect(broker.answer('p1', { decision: 'allow', decidedBy: 'client', scope: 'session' })).toEqual({ kind: 'same', answer: ALLOW })
    expect(broker.answer('p1', DENY)).toEqual({ kind: 'conflict', answer: ALLOW })
  })

  it('R16 answer() reports the winner when another racer settled the ticket first', () => {
    const broker = new InMemoryPermissionBroker()
    const ticket = broker.open(request('p1'))
    expect(ticket.settle(HOOK_DENY)).toBe(true)
    expect(broker.answer('p1', ALLOW)).toEqual({ kind: 'conflict', answer: HOOK_DENY })
    expect(broker.answer('p1', DENY)).toEqual({ kind: 'same', answer: HOOK_DENY })
  })

  it('R16 answer() on an id never opened is unknown', () => {
    expect(new InMemoryPermissionBroker().answer('perm_nope', ALLOW)).toEqual({ kind: 'unknown' })
  })

  it('R16 pending() lists open requests per session and forgets settled ones', () => {
    const broker = new InMemoryPermissionBroker()
    broker.open(request('a', 's1'))
    broker.open(request('b', 's2'))
    const c = broker.open(request('c', 's1'))
    expect(broker.pending('s1').map((r) => r.permissionId)).toEqual(['a', 'c'])
    expect(broker.pending('s2').map((r) => r.permissionId)).toEqual(['b'])
    expect(broker.pending('s3')).toEqual([])
    expect(broker.pending().map((r) => r.permissionId)).toEqual(['a', 'b', 'c'])
    c.settle(ALLOW)
    broker.answer('a', DENY)
    expect(broker.pending().map((r) => r.permissionId)).toEqual(['b'])
  })

  it('R16 is interactive', () => {
    expect(new InMemoryPermissionBroker().interactive).toBe(true)
  })
})

describe('R17 the denying broker', () => {
  it('R17 is not interactive and leaves the deny to the gate, with the exact text', async () => {
    const broker = createDenyingBroker()
    expect(broker.interactive).toBe(false)
    const ticket = await broker.open(request('p1'))
    expect(ticket.settled).toBeUndefined()
    // A hook may still decide first; only then does the no-client denial apply.
    expect(ticket.settle({ decision: 'allow', decidedBy: 'hook' })).toBe(true)
    expect(ticket.settle(DENIED_WITHOUT_CLIENT)).toBe(false)
    expect((await ticket.answer).decidedBy).toBe('hook')
    expect(DENIED_WITHOUT_CLIENT).toEqual({ decision: 'deny', decidedBy: 'broker', message: 'No permission client configured' })
  })
})
