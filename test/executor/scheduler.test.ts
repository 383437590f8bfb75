import { describe, expect, it } from 'vitest'
import type { ToolDependency } from '../../src/contracts/flags.js'
import { hasCode } from '../../src/contracts/errors.js'
import { canRunInParallel, planSchedule } from '../../src/executor/scheduler.js'

const read = (id: string): ToolDependency => ({ callId: id, toolName: 'Read', readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'none' })
const edit = (id: string): ToolDependency => ({ callId: id, toolName: 'Edit', readOnly: false, destructive: false, concurrentSafe: false, sideEffectScope: 'workspace' })
const webFetch = (id: string): ToolDependency => ({ callId: id, toolName: 'WebFetch', readOnly: true, destructive: false, concurrentSafe: true, sideEffectScope: 'network' })
const bash = (id: string): ToolDependency => ({ callId: id, toolName: 'Bash', readOnly: false, destructive: false, concurrentSafe: false, sideEffectScope: 'system' })

describe('scheduler', () => {
  it.each<[string, ToolDependency, boolean]>([
    ['no name and no metadata -> parallel', { callId: 'x' }, true],
    ['unknown name in the read-only list -> parallel', { callId: 'x', toolName: 'Grep' }, true],
    ['unknown name outside the list -> serial', { callId: 'x', toolName: 'Frobnicate' }, false],
    ['destructive beats concurrentSafe', { callId: 'x', toolName: 'CronDelete', destructive: true, concurrentSafe: true }, false],
    ['concurrentSafe true -> parallel', { callId: 'x', toolName: 'T', readOnly: false, concurrentSafe: true, sideEffectScope: 'system' }, true],
    ['concurrentSafe false beats readOnly', { callId: 'x', toolName: 'T', readOnly: true, concurrentSafe: false }, false],
    ['readOnly -> parallel', { callId: 'x', toolName: 'T', readOnly: true }, true],
    ['scope none -> parallel', { callId: 'x', toolName: 'T', readOnly: false, sideEffectScope: 'none' }, true],
    ['scope workspace -> serial', { callId: 'x', toolName: 'T', readOnly: false, sideEffectScope: 'workspace' }, false],
    ['metadata without a name falls through the checks', { callId: 'x', sideEffectScope: 'session' }, false],
  ])('R4 %s', (_label, tool, expected) => {
    expect(canRunInParallel(tool)).toBe(expected)
  })

  it("R5 groups the seed's example as [a,b] [c] [d] [e] [f]", () => {
    const plan = planSchedule([read('a'), read('b'), edit('c'), webFetch('d'), bash('e'), read('f')])
    // WebFetch is concurrentSafe, so it is parallel; it is alone only because Bash follows.
    expect(plan).toEqual([['a', 'b'], ['c'], ['d'], ['e'], ['f']])
  })

  it('R5 splits 25 parallel calls into groups of 10, 10 and 5', () => {
    const calls = Array.from({ length: 25 }, (_, i) => read(`r${i}`))
    expect(planSchedule(calls).map((g) => g.length)).toEqual([10, 10, 5])
  })

  it('R5 keeps the model order and flushes the open group before a serial call', () => {
    expect(planSchedule([read('a'), bash('b'), read('c'), read('d'), edit('e'), edit('f')])).toEqual([['a'], ['b'], ['c', 'd'], ['e'], ['f']])
  })

  it('R6 with no dependencies equals the R5 plan', () => {
    const calls = [read('a'), edit('b'), read('c'), read('d')]
    const withEmpty = calls.map((c) => ({ ...c, dependencies: [] }))
    expect(planSchedule(withEmpty)).toEqual(planSchedule(calls))
  })

  it('R6 orders by declared dependencies and never groups a call with its dependency', () => {
    const plan = planSchedule([{ ...read('a'), dependencies: ['c'] }, read('b'), read('c'), { ...read('d'), dependencies: ['b'] }])
    expect(plan).toEqual([
      ['b', 'c'],
      ['a', 'd'],
    ])
  })

  it('R6 a dependency cycle is an error naming the calls', () => {
    const run = (): unknown => planSchedule([read('a'), { ...read('b'), dependencies: ['c'] }, { ...read('c'), dependencies: ['d'] }, { ...read('d'), dependencies: ['b'] }])
    expect(run).toThrowError('Dependency cycle among calls: b -> c -> d -> b')
    try {
      run()
    } catch (error) {
      expect(hasCode(error, 'EXEC_ERR_DEPENDENCY_CYCLE')).toBe(true)
    }
  })

  it('R6 an unknown dependency and a duplicate id are coded errors', () => {
    expect(() => planSchedule([{ ...read('a'), dependencies: ['zz'] }])).toThrowError('Call a depends on unknown call zz')
    expect(() => planSchedule([read('a'), read('a')])).toThrowError('Duplicate call id: a')
  })

  it('R6 a self-dependency is a cycle', () => {
    expect(() => planSchedule([{ ...read('a'), dependencies: ['a'] }])).toThrowError('Dependency cycle among calls: a -> a')
  })
})
