/**
 * Global setup of the `postgres` test project (vitest.config.ts): one private PostgreSQL server
 * for the run, whose socket directory the tests are given (`inject('postgresDir')`); each test
 * server makes its own database there (test/support/test-database.ts).
 */
import type { TestProject } from 'vitest/node'
import { startPrivatePostgres } from './private-postgres.js'

declare module 'vitest' {
  export interface ProvidedContext {
    postgresDir: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPrivatePostgres()
  project.provide('postgresDir', server.dir)
  return () => server.stop()
}
