import { defineConfig } from 'vitest/config'

/** What both projects share. */
const shared = {
  testTimeout: 20_000,
  pool: 'forks' as const,
  setupFiles: ['test/support/remove-temp-dirs.ts'],
}

/**
 * The suites that run a second time on PostgreSQL (issue 16): the store contract and the HTTP
 * suites of the promises each backend must keep.
 */
const POSTGRES_SUITES = [
  'test/storage/store-contract.test.ts',
  'test/storage/audit-log.test.ts',
  'test/http/audit.test.ts',
  'test/http/schedules.test.ts',
  'test/http/events.test.ts',
  'test/http/session-stream.test.ts',
  'test/http/permissions.test.ts',
  'test/http/approval-binding.test.ts',
  'test/http/crash-recovery.test.ts',
  'test/http/crash-background-tasks.test.ts',
  'test/http/sessions.test.ts',
  'test/http/nul-text.test.ts',
  'test/http/session-labels.test.ts',
]
/** What only PostgreSQL has, tested in the postgres project alone. */
const POSTGRES_ONLY = ['test/**/postgres-*.test.ts']

export default defineConfig({
  test: {
    // The suite's own TMPDIR, which must be empty at the end (run once, for both projects).
    globalSetup: ['test/support/tmpdir-guard.ts'],
    projects: [
      { test: { ...shared, name: 'sqlite', include: ['test/**/*.test.ts'], exclude: POSTGRES_ONLY } },
      {
        test: {
          ...shared,
          name: 'postgres',
          include: [...POSTGRES_SUITES, ...POSTGRES_ONLY],
          globalSetup: ['test/support/postgres-setup.ts'],
          setupFiles: [...shared.setupFiles, 'test/support/drop-test-databases.ts'],
        },
      },
    ],
  },
})
