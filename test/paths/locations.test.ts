import { mkdir, realpath, symlink } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { isWithin, realLocation } from '../../src/paths/locations.js'
import { tempDir } from '../support/temp-dirs.js'

describe('path locations', () => {
  it.each<[string, string, string, boolean]>([
    ['the root itself', '/ws', '/ws', true],
    ['a path below', '/ws', '/ws/a/b', true],
    ['a sibling with the same prefix', '/ws', '/ws2/a', false],
    ['the parent', '/ws/a', '/ws', false],
    ['a path below a root with a trailing separator', '/ws/', '/ws/a', true],
  ])('R13 isWithin tells %s', (_name, root, target, expected) => {
    expect(isWithin(root, target)).toBe(expected)
  })

  it('R13 realLocation follows a symlink, and keeps the names that do not exist yet', async () => {
    const root = await realpath(await tempDir('locations-'))
    await mkdir(path.join(root, 'real'))
    await symlink(path.join(root, 'real'), path.join(root, 'link'))
    expect(await realLocation(path.join(root, 'link'))).toBe(path.join(root, 'real'))
    expect(await realLocation(path.join(root, 'link', 'new', 'file.txt'))).toBe(path.join(root, 'real', 'new', 'file.txt'))
  })

  it('R13 realLocation of a path under a file names the file, not an error', async () => {
    const root = await realpath(await tempDir('locations-'))
    await symlink('/dev/null', path.join(root, 'null'))
    expect(await realLocation(path.join(root, 'null', 'below'))).toBe('/dev/null/below')
  })
})
