/**
 * @module The script a worker thread starts from. Compiled (dist/), a worker is the plain .js
 * beside the module that starts it. From the TypeScript source (npm start, the tests) a worker
 * does not inherit tsx's or vitest's loader, and loading it through tsx costs a second or more
 * of CPU per thread; so the worker's source is bundled once, with esbuild (a development
 * dependency, present wherever the source runs), into one JavaScript file that starts in about
 * a tenth of that. Without esbuild, the caller's fallback (a tsx shim) is used.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

interface EsbuildLike {
  buildSync(options: Record<string, unknown>): { outputFiles?: Array<{ text: string }> }
}

const bundled = new Map<string, URL | undefined>()

/**
 * The URL to start a worker from: `compiled` when this runs as JavaScript; else the bundle of
 * `source` (a .ts file), or `fallback` when it cannot be made.
 */
export function workerScriptUrl(urls: { readonly compiled: URL; readonly source: URL; readonly fallback: URL }): URL {
  if (!urls.source.href.endsWith('.ts') || !import.meta.url.endsWith('.ts')) return urls.compiled
  if (!bundled.has(urls.source.href)) bundled.set(urls.source.href, bundle(fileURLToPath(urls.source)))
  return bundled.get(urls.source.href) ?? urls.fallback
}

function bundle(sourceFile: string): URL | undefined {
  try {
    const esbuild = createRequire(import.meta.url)('esbuild') as EsbuildLike
    const result = esbuild.buildSync({ entryPoints: [sourceFile], bundle: true, platform: 'node', format: 'esm', packages: 'external', write: false, logLevel: 'silent' })
    const text = result.outputFiles?.[0]?.text
    return text === undefined ? undefined : pathToFileURL(cached(sourceFile, text))
  } catch {
    return undefined
  }
}

/** The bundle kept under node_modules/.cache, named by its content: written once, whole (renamed into place). */
function cached(sourceFile: string, text: string): string {
  const root = packageRoot(sourceFile)
  const dir = path.join(root, 'node_modules', '.cache', 'toolexec')
  const name = `${path.basename(sourceFile, '.ts')}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`
  const file = path.join(dir, name)
  if (existsSync(file)) return file
  mkdirSync(dir, { recursive: true })
  const partial = `${file}.${process.pid}.tmp`
  writeFileSync(partial, text)
  renameSync(partial, file)
  return file
}

/** The nearest directory above `file` that holds node_modules (where esbuild was found). */
function packageRoot(file: string): string {
  let dir = path.dirname(file)
  while (!existsSync(path.join(dir, 'node_modules')) && path.dirname(dir) !== dir) dir = path.dirname(dir)
  return dir
}
