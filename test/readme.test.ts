import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { replaceTable, ROOT, RULE_COUNT, RULE_TITLES, ruleTable, rulesByFile } from '../scripts/rule-table.js'

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')

describe('README', () => {
  it('has the two-command quick start', () => {
    expect(readme).toContain('npm ci && npm start')
    expect(readme).toContain('npm test')
  })

  it('lists every rule of the specification with a test that names it', () => {
    expect(RULE_TITLES).toHaveLength(RULE_COUNT)
    const found = rulesByFile()
    const missing = RULE_TITLES.map((_, index) => index + 1).filter((rule) => (found.get(rule) ?? []).length === 0)
    expect(missing).toEqual([])
  })

  it('carries the rule table as generated from the tests (run `npm run rules`)', () => {
    expect(replaceTable(readme, ruleTable())).toBe(readme)
  })
})
