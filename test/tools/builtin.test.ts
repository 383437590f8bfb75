import { describe, expect, it } from 'vitest'
import { canRunInParallel } from '../../src/executor/scheduler.js'
import { declaredFlags } from '../../src/executor/tool-flags.js'
import { effectiveBudgetBytes } from '../../src/executor/result-serialization.js'
import { builtinTools } from '../../src/tools/builtin.js'

const tools = new Map(builtinTools().map((tool) => [tool.name, tool]))
const tool = (name: string) => {
  const entry = tools.get(name)
  if (entry === undefined) throw new Error(`no built-in ${name}`)
  return entry
}

describe('built-in tools', () => {
  it('R7 the built-ins that always run alone are serial, every other built-in may run in parallel', () => {
    const serial = ['Write', 'Edit', 'Bash', 'TodoWrite', 'EnterPlanMode', 'ExitPlanMode', 'submit_result']
    for (const name of tools.keys()) {
      const flags = declaredFlags(tool(name))
      const parallel = canRunInParallel({ callId: 'c', toolName: name, ...flags })
      expect([name, parallel]).toEqual([name, !serial.includes(name)])
    }
  })

  it.each<[string, boolean, boolean, boolean, string, number, string]>([
    ['Read', true, false, true, 'none', 262_144, 'truncate'],
    ['Write', false, false, false, 'workspace', 100_000, 'truncate'],
    ['Edit', false, false, false, 'workspace', 100_000, 'truncate'],
    ['Bash', false, false, false, 'system', 30_000, 'artifact'],
    ['Glob', true, false, true, 'none', 100_000, 'artifact'],
    ['Grep', true, false, true, 'none', 20_000, 'artifact'],
    ['WebFetch', true, false, true, 'network', 100_000, 'artifact'],
    ['TodoWrite', true, false, false, 'session', 100_000, 'truncate'],
    ['EnterPlanMode', false, false, false, 'session', 100_000, 'truncate'],
    ['ExitPlanMode', false, false, false, 'session', 100_000, 'truncate'],
    ['submit_result', false, false, false, 'session', 16_000, 'truncate'],
    ['TaskOutput', true, false, true, 'none', 400_000, 'artifact'],
    ['TaskStop', false, false, true, 'session', 100_000, 'truncate'],
  ])('R35 %s declares the flags and budget of appendix A1', (name, readOnly, destructive, concurrentSafe, scope, budget, strategy) => {
    const entry = tool(name)
    expect([entry.readOnly, entry.destructive, entry.concurrentSafe, entry.permission.sideEffectScope]).toEqual([readOnly, destructive, concurrentSafe, scope])
    expect(effectiveBudgetBytes(entry)).toBe(budget)
    expect(entry.resultBudget?.strategy ?? 'truncate').toBe(strategy)
  })

  it.each<[string, string, number | undefined, number | undefined, boolean]>([
    ['Read', 'deadline', 30_000, undefined, false],
    ['Bash', 'deadline', 120_000, 600_000, true],
    ['WebFetch', 'deadline', 60_000, undefined, false],
    ['submit_result', 'none', undefined, undefined, false],
    ['TaskOutput', 'none', undefined, undefined, false],
    ['TaskStop', 'deadline', 10_000, undefined, false],
  ])('R20 %s has the timeout policy of appendix A1', (name, kind, defaultMs, maxMs, override) => {
    const policy = tool(name).timeout
    expect(policy?.kind).toBe(kind)
    if (kind === 'none') return
    expect([policy?.defaultMs, policy?.maxMs, policy?.allowCallOverride === true]).toEqual([defaultMs, maxMs, override])
  })
})
