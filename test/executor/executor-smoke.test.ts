import { describe, expect, it } from 'vitest'
import { InMemoryToolRegistry } from '../../src/tools/registry.js'
import { collectEvents, editTool, readTool } from '../support/tools.js'
import { createTestExecutor } from '../support/executor.js'

describe('executor', () => {
  it('R12 runs a read-only call end to end and a non-read-only call is denied without a client', async () => {
    const executor = createTestExecutor({ registry: new InMemoryToolRegistry([readTool, editTool]) })
    const { events, emit } = collectEvents()
    const outcome = await executor.executeSchedule(
      [
        { id: 'a', name: 'Read', input: { file_path: 'x' } },
        { id: 'b', name: 'Edit', input: { file_path: 'y' } },
      ],
      { sessionId: 's', emit },
    )
    expect(outcome.results.map((r) => [r.status, r.modelContent])).toEqual([
      ['succeeded', 'contents of x'],
      ['denied', 'No permission client configured'],
    ])
    expect(events.map((e) => e.type)).toContain('PermissionRequested')
  })
})
