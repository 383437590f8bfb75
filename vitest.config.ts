import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'forks',
    // The suite's own TMPDIR, which must be empty at the end; and the hooks that empty it.
    globalSetup: ['test/support/tmpdir-guard.ts'],
    setupFiles: ['test/support/remove-temp-dirs.ts'],
  },
})
