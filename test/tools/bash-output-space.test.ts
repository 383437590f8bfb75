/** A command's output is taken as possibly cut when its file system is left with almost no free space. */
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { OUTPUT_SPACE_FLOOR_BYTES, outputSpaceRanOut } from '../../src/tools/bash/output-space.js'

describe('outputSpaceRanOut', () => {
  const file = path.join(os.tmpdir(), 'some-output.txt')

  it('says nothing while the file system has more free space than the floor', () => {
    expect(OUTPUT_SPACE_FLOOR_BYTES).toBe(1024 * 1024)
    expect(outputSpaceRanOut(file, 0)).toBeUndefined()
  })

  it('names the folder and its free bytes once the file system has less than the floor', () => {
    expect(outputSpaceRanOut(file, Number.MAX_SAFE_INTEGER)).toMatch(new RegExp(`^no space left on the file system of ${os.tmpdir()} \\(\\d+ bytes free\\)$`))
  })

  it('says nothing for a folder that cannot be asked about', () => {
    expect(outputSpaceRanOut('/no/such/folder/output.txt', Number.MAX_SAFE_INTEGER)).toBeUndefined()
  })
})
