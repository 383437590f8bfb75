/** A dir made past test/support/temp-dirs.ts, never removed: the guard names it. */
import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { it } from 'vitest'

it('leaves a dir behind', () => {
  mkdtempSync(path.join(os.tmpdir(), 'left-behind-'))
})
