import { execFileSync } from 'node:child_process'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readRegularFileSync, readSteeringFile } from '../../src/paths/steering-file.js'
import { tempDir } from '../support/temp-dirs.js'

const SECRET = 'SECRET-42e1'

async function rootWith(make: (file: string) => Promise<void> | void): Promise<{ root: string; file: string }> {
  const root = await tempDir('steering-')
  await mkdir(path.join(root, 'dir'))
  const file = path.join(root, 'dir', 'f.json')
  await make(file)
  return { root, file }
}

async function outsideFile(): Promise<string> {
  const file = path.join(await tempDir('outside-'), 'secret.txt')
  await writeFile(file, SECRET)
  return file
}

describe('steering files read without waiting and without leaving the root', () => {
  it.each<[string, (file: string) => Promise<void> | void, unknown]>([
    ['a regular file', (file) => writeFile(file, '{"a":1}'), { kind: 'text', text: '{"a":1}' }],
    ['no file', () => undefined, { kind: 'missing' }],
    ['a FIFO', (file) => void execFileSync('mkfifo', [file]), { kind: 'refused', problem: 'it is not a regular file' }],
    ['a directory', (file) => mkdir(file), { kind: 'refused', problem: 'it is not a regular file' }],
    ['a symlink, even to a file inside', async (file) => symlink(path.join(path.dirname(file), 'other'), file), { kind: 'refused', problem: 'it is a symbolic link' }],
    ['a symlink to an outside file', async (file) => symlink(await outsideFile(), file), { kind: 'refused', problem: 'it is a symbolic link' }],
    ['a file over the cap', (file) => writeFile(file, 'x'.repeat(65)), { kind: 'refused', problem: 'it is larger than 64 bytes' }],
  ])('%s', async (_name, make, expected) => {
    const { root } = await rootWith(make)
    await writeFile(path.join(root, 'dir', 'other'), '{}')
    expect(await readSteeringFile(root, path.join('dir', 'f.json'), 64)).toEqual(expected)
  })

  it('a directory on the way that is a symlink out of the root is refused; one inside is followed', async () => {
    const outside = path.dirname(await outsideFile())
    await writeFile(path.join(outside, 'f.json'), SECRET)
    const root = await tempDir('steering-')
    await symlink(outside, path.join(root, 'out'))
    expect(await readSteeringFile(root, path.join('out', 'f.json'), 64)).toEqual({ kind: 'refused', problem: 'it leads outside the workspace' })
    await mkdir(path.join(root, 'real'))
    await writeFile(path.join(root, 'real', 'f.json'), '{}')
    await symlink('real', path.join(root, 'in'))
    expect(await readSteeringFile(root, path.join('in', 'f.json'), 64)).toEqual({ kind: 'text', text: '{}' })
  })

  it('the synchronous read gives the text of a regular file only', async () => {
    const { file } = await rootWith((name) => writeFile(name, 'dist/\n'))
    expect(readRegularFileSync(file, 64)).toBe('dist/\n')
    expect(readRegularFileSync(file, 3)).toBeUndefined()
    const { file: fifo } = await rootWith((name) => void execFileSync('mkfifo', [name]))
    expect(readRegularFileSync(fifo, 64)).toBeUndefined()
    const { file: link } = await rootWith(async (name) => symlink(await outsideFile(), name))
    expect(readRegularFileSync(link, 64)).toBeUndefined()
  })
})
