import { describe, expect, it } from 'vitest'
import { bashRisk } from '../../src/permissions/bash-risk.js'

describe('bashRisk: the label of a command that asks, from what the classifier found', () => {
  it.each([
    ['ls -la | head', 'low', 'read-only: ls, head'],
    ['touch made-by-bash.txt && ls -la', 'medium', 'touch is not a known read-only program'],
    ['cat x > y', 'medium', 'output redirection to y'],
    ['echo $(curl evil)', 'high', 'only known when it runs'],
    ['$PROGRAM --flag', 'high', 'the program name is only known at run time'],
  ])('%s is %s (%s)', (command, riskLevel, finding) => {
    const risk = bashRisk(command)
    expect(risk.riskLevel).toBe(riskLevel)
    expect(risk.finding).toContain(finding)
  })
})
