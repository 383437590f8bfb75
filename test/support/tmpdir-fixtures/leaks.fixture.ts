/** A dir made past test/support/temp-dirs.ts, never removed, with a file in it: the guard names both. */
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { it } from 'vitest'

it('leaves a dir behind', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'left-behind-'))
  writeFileSync(path.join(dir, 'state.db'), 'abc')
})
