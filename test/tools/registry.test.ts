import { describe, expect, it } from 'vitest'
import { hasCode } from '../../src/contracts/errors.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { makeTool } from '../support/schedule-tools.js'

const read = makeTool('Read', () => Promise.resolve('x'))

function thrown(action: () => unknown): unknown {
  try {
    action()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('tool registry', () => {
  it('R2 registers, looks up, lists and unregisters tools', () => {
    const registry = new InMemoryToolRegistry([read])
    const grep = makeTool('Grep', () => Promise.resolve('y'))
    registry.register(grep)
    expect(registry.get('Read')).toBe(read)
    expect(registry.list().map((t) => t.name)).toEqual(['Read', 'Grep'])
    expect(registry.unregister('Read')).toBe(true)
    expect(registry.get('Read')).toBeUndefined()
    expect(registry.unregister('Read')).toBe(false)
  })

  it('R2 rejects a duplicate name with EXEC_ERR_DUPLICATE_TOOL and keeps the first entry', () => {
    const registry = new InMemoryToolRegistry([read])
    const error = thrown(() => registry.register(makeTool('Read', () => Promise.resolve('other'))))
    expect(hasCode(error, 'EXEC_ERR_DUPLICATE_TOOL')).toBe(true)
    expect((error as Error).message).toBe('A tool named Read is already registered')
    expect(registry.get('Read')).toBe(read)
  })

  it('R2 rejects duplicates given to the constructor', () => {
    expect(
      hasCode(
        thrown(() => new InMemoryToolRegistry([read, read])),
        'EXEC_ERR_DUPLICATE_TOOL',
      ),
    ).toBe(true)
  })

  const broken = (fields: Record<string, unknown>): ToolEntry => ({ ...read, ...fields })
  it.each<[string, ToolEntry]>([
    ['a missing handler', broken({ handler: undefined })],
    ['an empty name', broken({ name: '' })],
    ['an unknown side-effect scope', broken({ permission: { sideEffectScope: 'everywhere' } })],
    ['a non-boolean readOnly', broken({ readOnly: 'yes' })],
    ['a zero result budget', broken({ resultBudget: { maxModelBytes: 0, maxInlineBytes: 10, strategy: 'truncate', previewDirection: 'head' } })],
    ['an unknown timeout kind', broken({ timeout: { kind: 'forever' } })],
  ])('R2 rejects %s with EXEC_ERR_INVALID_TOOL and registers nothing', (_label, entry) => {
    const registry = new InMemoryToolRegistry()
    const error = thrown(() => registry.register(entry))
    expect(hasCode(error, 'EXEC_ERR_INVALID_TOOL')).toBe(true)
    expect((error as Error).message).toMatch(/^Invalid tool entry .*: .+/)
    expect(registry.list()).toEqual([])
  })
})
