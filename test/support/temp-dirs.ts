/**
 * Every temporary directory a test makes comes from here, under os.tmpdir() (so $TMPDIR), and is
 * removed after the test that made it, or after its file when made outside a test (module
 * level, beforeAll). The hooks that remove them are in test/support/remove-temp-dirs.ts, a
 * vitest setup file, so they run after the file's own hooks have closed servers and stopped
 * child processes.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

const ofTest: string[] = []
const ofFile: string[] = []
let inTest = false

/** A fresh directory `$TMPDIR/toolexec-<prefix>-XXXXXX`, removed after the test (or file). */
export async function tempDir(prefix: string): Promise<string> {
  return registered(await mkdtemp(template(prefix)))
}

/** tempDir, synchronously (module level, or where a sync function needs one). */
export function tempDirSync(prefix: string): string {
  return registered(mkdtempSync(template(prefix)))
}

function template(prefix: string): string {
  return path.join(os.tmpdir(), `toolexec-${prefix}-`)
}

function registered(dir: string): string {
  ;(inTest ? ofTest : ofFile).push(dir)
  return dir
}

export function enterTest(): void {
  inTest = true
}

export function removeTestDirs(): void {
  inTest = false
  removeAll(ofTest)
}

export function removeFileDirs(): void {
  removeAll(ofFile)
}

function removeAll(dirs: string[]): void {
  for (const dir of dirs.splice(0).reverse()) removeTree(dir)
}

/** rm -rf, also through directories a test made read-only (a non-root user cannot unlink in them). */
export function removeTree(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EACCES' && (error as NodeJS.ErrnoException).code !== 'EPERM') throw error
    makeWritable(dir)
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
  }
}

function makeWritable(dir: string): void {
  try {
    chmodSync(dir, 0o700)
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) makeWritable(path.join(dir, entry.name))
  } catch {
    // A part already gone or not ours: rmSync reports what is left.
  }
}
