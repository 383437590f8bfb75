import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { replaceTable, ROOT, RULE_COUNT, RULE_TITLES, RULES_PAGE, ruleTable, rulesByFile } from '../scripts/rule-table.js'

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
const rulesPage = readFileSync(RULES_PAGE, 'utf8')

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

  it('carries the rule table in docs/rules-and-tests.md as generated from the tests (run `npm run rules`)', () => {
    expect(replaceTable(rulesPage, ruleTable())).toBe(rulesPage)
  })

  it('is a front page of at most 250 lines whose links to docs/ pages and files all lead somewhere', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250)
    for (const page of [
      readme,
      ...readdirSync(path.join(ROOT, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ]) {
      const [file, text] = page === readme ? ['README.md', readme] : [page, readFileSync(path.join(ROOT, page), 'utf8')]
      for (const [, target = ''] of text.matchAll(/\]\(((?!https?:|#|mailto:)[^)#]+)(?:#[^)]*)?\)/g)) {
        expect(existsSync(path.join(ROOT, path.dirname(file), target)), `${file} links to ${target}`).toBe(true)
      }
    }
  })
})
