/**
 * Setup file (vitest.config.ts): registered before a test file's own hooks, these run after
 * them (vitest runs after-hooks in reverse order), once servers are closed and children stopped.
 */
import { afterAll, afterEach, beforeEach } from 'vitest'
import { enterTest, removeFileDirs, removeTestDirs } from './temp-dirs.js'

beforeEach(enterTest)
afterEach(removeTestDirs)
afterAll(removeFileDirs)
