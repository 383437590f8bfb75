import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import type { PermissionBehavior, PermissionMode } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { flagsFor } from '../../src/executor/tool-flags.js'
import { createModePermissionService, evaluateMode } from '../../src/permissions/mode-permission-service.js'
import { editTool, readTool } from '../support/tools.js'
import { writeTool } from '../support/permission-tools.js'

const shellTool: ToolEntry = {
  name: 'Shell',
  description: 'Runs a command',
  inputSchema: Type.Object({}),
  readOnly: false,
  destructive: false,
  concurrentSafe: false,
  permission: { sideEffectScope: 'system' },
  handler: () => Promise.resolve('ran'),
}

const TOOLS: Record<string, ToolEntry> = { Read: readTool, Edit: editTool, Write: writeTool().entry, Shell: shellTool }

function evaluate(mode: PermissionMode, toolName: string) {
  const entry = TOOLS[toolName] as ToolEntry
  const input = { file_path: 'src/a.ts' }
  return evaluateMode({ sessionId: 's', callId: 'c', toolName, input, flags: flagsFor(entry, input), entry, mode })
}

type Row = [PermissionMode, string, PermissionBehavior, string]

describe('the mode permission service', () => {
  it.each<Row>([
    ['default', 'Read', 'allow', 'mode.readOnly'],
    ['default', 'Edit', 'ask', 'mode.default'],
    ['default', 'Write', 'ask', 'mode.default'],
    ['default', 'Shell', 'ask', 'mode.default'],
    ['acceptEdits', 'Read', 'allow', 'mode.readOnly'],
    ['acceptEdits', 'Edit', 'allow', 'mode.acceptEdits'],
    ['acceptEdits', 'Write', 'allow', 'mode.acceptEdits'],
    ['acceptEdits', 'Shell', 'ask', 'mode.acceptEdits'],
    ['plan', 'Read', 'allow', 'mode.readOnly'],
    ['plan', 'Edit', 'deny', 'mode.plan'],
    ['plan', 'Write', 'deny', 'mode.plan'],
    ['plan', 'Shell', 'deny', 'mode.plan'],
    ['dontAsk', 'Read', 'allow', 'mode.readOnly'],
    ['dontAsk', 'Edit', 'deny', 'mode.dontAsk'],
    ['dontAsk', 'Write', 'deny', 'mode.dontAsk'],
    ['dontAsk', 'Shell', 'deny', 'mode.dontAsk'],
    ['bypassPermissions', 'Read', 'allow', 'mode.bypassPermissions'],
    ['bypassPermissions', 'Edit', 'allow', 'mode.bypassPermissions'],
    ['bypassPermissions', 'Write', 'allow', 'mode.bypassPermissions'],
    ['bypassPermissions', 'Shell', 'allow', 'mode.bypassPermissions'],
  ])('R14 in %s mode %s gets %s (%s)', (mode, toolName, behavior, ruleId) => {
    const verdict = evaluate(mode, toolName)
    expect([verdict.behavior, verdict.ruleId]).toEqual([behavior, ruleId])
  })

  it('R14 an ask names the tool, rates its risk by scope and suggests a rule for it', () => {
    expect(evaluate('default', 'Shell')).toMatchObject({ reason: 'Tool Shell requires approval', riskLevel: 'high', suggestedRule: 'Shell' })
    expect(evaluate('default', 'Edit')).toMatchObject({ reason: 'Tool Edit requires approval', riskLevel: 'medium', suggestedRule: 'Edit' })
  })

  it('A9 only plan mode marks its deny as the blanket mode deny that memory files are exempt from', () => {
    expect(evaluate('plan', 'Write')).toMatchObject({ modeDeny: true, reason: 'Write is not allowed in plan mode' })
    expect(evaluate('dontAsk', 'Write')).toMatchObject({ reason: 'Permission denied for Write' })
    expect(evaluate('dontAsk', 'Write').modeDeny).toBeUndefined()
  })

  it('R3 a tool declared read-only with scope session is not read-only, yet runs without asking since it changes only the session', () => {
    const todo: ToolEntry = { ...shellTool, name: 'TodoWrite', readOnly: true, permission: { sideEffectScope: 'session' } }
    const flags = flagsFor(todo, {})
    expect(flags.readOnly).toBe(false)
    for (const mode of ['default', 'acceptEdits', 'plan', 'dontAsk'] as const) {
      const verdict = evaluateMode({ sessionId: 's', callId: 'c', toolName: 'TodoWrite', input: {}, flags, entry: todo, mode })
      expect(verdict).toMatchObject({ behavior: 'allow', ruleId: 'mode.sessionScope' })
    }
  })

  it('R2 createModePermissionService evaluates with the same table', async () => {
    const entry = TOOLS['Edit'] as ToolEntry
    const query = { sessionId: 's', callId: 'c', toolName: 'Edit', input: {}, flags: flagsFor(entry, {}), entry, mode: 'acceptEdits' as const }
    expect(await createModePermissionService().evaluate(query)).toEqual(evaluateMode(query))
  })
})
