/** What a user reads about the package before running it: its licence, what git ignores, the Node versions. */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '..')
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8')
const manifest = JSON.parse(read('package.json')) as { license?: string; engines?: { node?: string } }

describe('the package metadata', () => {
  it('is MIT licensed, in the license field and in a LICENSE file', () => {
    expect(manifest.license).toBe('MIT')
    expect(read('LICENSE')).toMatch(/^MIT License\n/)
  })

  it('keeps packed tarballs out of git', () => {
    expect(read('.gitignore').split('\n')).toContain('*.tgz')
  })

  it('states in the README the Node versions that engines allows', () => {
    expect(manifest.engines?.node).toBe('^20.20.2 || >=22.12.0')
    expect(read('README.md')).toContain('Node 20.20.2 or a later 20, or 22.12 or newer (`engines` in package.json)')
  })
})
