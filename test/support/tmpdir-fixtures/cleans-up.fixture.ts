/** Temp dirs from module level, beforeAll and a test (one read-only): none is left after the file. */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { tempDir, tempDirSync } from '../temp-dirs.js'

const ofModule = tempDirSync('fixture-module')
let ofBeforeAll = ''
let ofFirstTest = ''

beforeAll(async () => {
  ofBeforeAll = await tempDir('fixture-before-all')
})

it('makes a dir in a test, with a read-only directory in it', async () => {
  ofFirstTest = await tempDir('fixture-test')
  const locked = path.join(ofFirstTest, 'locked')
  mkdirSync(locked)
  writeFileSync(path.join(locked, 'file'), 'x')
  chmodSync(locked, 0o555)
  expect(existsSync(ofModule) && existsSync(ofBeforeAll)).toBe(true)
})

it("finds the first test's dir removed and the file's dirs kept", () => {
  expect(existsSync(ofFirstTest)).toBe(false)
  expect(existsSync(ofModule) && existsSync(ofBeforeAll)).toBe(true)
})
