import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { workerScriptUrl } from '../../src/processes/worker-script.js'

const source = new URL('../../src/tools/grep/grep-worker.ts', import.meta.url)
const fallback = new URL('../../src/tools/grep/grep-worker.mjs', import.meta.url)
const compiled = new URL('../../src/tools/grep/grep-worker.js', import.meta.url)

describe('the script a worker starts from', () => {
  it('is, from the TypeScript source, one bundled JavaScript file kept under node_modules/.cache, named by its content', () => {
    const url = workerScriptUrl({ compiled, source, fallback })
    expect(url.href).not.toBe(fallback.href)
    expect(url.href).toMatch(/\/node_modules\/\.cache\/toolexec\/grep-worker-[0-9a-f]{16}\.mjs$/)
    const file = fileURLToPath(url)
    expect(existsSync(file)).toBe(true)
    expect(readFileSync(file, 'utf8')).not.toMatch(/from ['"]\.\.?\//)
    expect(workerScriptUrl({ compiled, source, fallback }).href).toBe(url.href)
  })

  it('is the compiled file when the worker is not TypeScript', () => {
    const plain = new URL('../../dist/tools/grep/grep-worker.js', import.meta.url)
    expect(workerScriptUrl({ compiled: plain, source: plain, fallback }).href).toBe(plain.href)
  })
})
