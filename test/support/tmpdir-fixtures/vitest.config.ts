/** The suite's TMPDIR guard and temp-dir hooks around the fixtures of test/tmpdir-guard.test.ts. */
import path from 'node:path'
import { defineConfig } from 'vitest/config'

const support = path.resolve(import.meta.dirname, '..')

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['*.fixture.ts'],
    pool: 'forks',
    globalSetup: [path.join(support, 'tmpdir-guard.ts')],
    setupFiles: [path.join(support, 'remove-temp-dirs.ts')],
  },
})
