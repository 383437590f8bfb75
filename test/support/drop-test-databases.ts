/**
 * Setup file of the `postgres` project (vitest.config.ts): registered after remove-temp-dirs.ts
 * and before a test file's own hooks, this runs once the file's servers are closed, and drops
 * the databases the file made, so that a run does not fill the disk.
 */
import { afterAll } from 'vitest'
import { dropDatabasesOfFile } from './test-database.js'

afterAll(dropDatabasesOfFile)
