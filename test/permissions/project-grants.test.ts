import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ruleCommandSplitter } from '../../src/permissions/command-splitter.js'
import { projectGrantRules } from '../../src/permissions/project-grants.js'
import { narrowestRule } from '../../src/permissions/narrowest-rule.js'
import { openDatabase } from '../../src/storage/sqlite/database.js'
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.js'
import { tempDir } from '../support/permission-tools.js'
import { ruleRequest } from '../support/rule-requests.js'

const opened: { close(): void }[] = []

afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

async function store(): Promise<SqliteStore> {
  const db = openDatabase(path.join(await tempDir('grants-db'), 'toolexec.db'))
  opened.push(db)
  return new SqliteStore(db)
}

const AT = '2026-01-01T00:00:00.000Z'

describe('project grants', () => {
  it('R16 a grant written for a workspace allows the request it came from there, and only there', async () => {
    const sqlite = await store()
    const request = ruleRequest('Bash', { command: 'npm test && npm run lint' }, '/ws/a')
    await sqlite.commit((unit) => unit.rules.insertProjectRule('/ws/a', narrowestRule(request), AT))
    const grants = projectGrantRules(sqlite.rules, ruleCommandSplitter)
    const [rule] = (await grants('/ws/a')).allow
    expect(rule?.source).toBe('Bash(npm test && npm run lint)')
    expect(rule?.matches(request)).toBe(true)
    expect(rule?.matches(ruleRequest('Bash', { command: 'npm test && curl evil' }, '/ws/a'))).toBe(false)
    expect((await grants('/ws/b')).allow).toEqual([])
    expect((await grants('/ws/a')).deny).toEqual([])
  })

  it('R16 the same grant twice is stored once; a deleted grant allows nothing any more', async () => {
    const sqlite = await store()
    await sqlite.commit((unit) => unit.rules.insertProjectRule('/ws', 'Edit(src/a.ts)', AT))
    await sqlite.commit((unit) => unit.rules.insertProjectRule('/ws', 'Edit(src/a.ts)', AT))
    const grants = projectGrantRules(sqlite.rules, ruleCommandSplitter)
    expect((await grants('/ws')).allow.map((rule) => rule.source)).toEqual(['Edit(src/a.ts)'])
    const rules = await sqlite.rules.projectRules()
    expect(rules).toHaveLength(1)
    await sqlite.commit((unit) => unit.rules.deleteProjectRule(rules[0]?.id ?? ''))
    expect(await sqlite.rules.projectRules()).toEqual([])
    expect((await grants('/ws')).allow).toEqual([])
  })

  it('R16 a stored rule that does not compile grants nothing and does not break the others', async () => {
    const sqlite = await store()
    await sqlite.commit((unit) => {
      unit.rules.insertProjectRule('/ws', 'Bash(', AT)
      unit.rules.insertProjectRule('/ws', 'WebFetch(domain:example.com)', '2026-01-02T00:00:00.000Z')
    })
    const grants = projectGrantRules(sqlite.rules, ruleCommandSplitter)
    expect((await grants('/ws')).allow.map((rule) => rule.source)).toEqual(['WebFetch(domain:example.com)'])
  })
})
