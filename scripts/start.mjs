/**
 * `npm start`: the server from the TypeScript source, in this process (npm's one child is the
 * server: a signal to npm's PID reaches it, see docs/install.md). Loading ~400 modules through
 * tsx's loader took seconds; esbuild instead compiles src/ once, file by file as tsc lays out
 * dist/, into .start/ beside it (the same depth below the package root, so that every path a
 * module finds from its own URL, the install root, migrations, the console, is the same), and
 * again whenever a source is newer than that copy. Without esbuild, or where it cannot write
 * that copy, the source runs through tsx as before.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const SOURCE = path.join(ROOT, 'src')
const OUT = path.join(ROOT, '.start')
/** Written last: the copy is whole; it holds the newest source time the copy was made from. */
const STAMP = path.join(OUT, '.built')

/** Every file under `dir`, with the newest modification time among them (this script's own counts too). */
function sources(dir) {
  const files = []
  let newest = statSync(fileURLToPath(import.meta.url)).mtimeMs
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else {
        files.push(full)
        newest = Math.max(newest, statSync(full).mtimeMs)
      }
    }
  }
  walk(dir)
  return { files, newest }
}

function esbuildOrUndefined() {
  try {
    return createRequire(import.meta.url)('esbuild')
  } catch {
    return undefined
  }
}

/** Compiles into a directory of its own, then puts it in place whole: a start never sees half a copy. */
function compile(esbuild, files, newest) {
  const partial = `${OUT}-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  const entryPoints = files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  esbuild.buildSync({ entryPoints, outdir: partial, outbase: SOURCE, bundle: false, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' })
  mkdirSync(partial, { recursive: true })
  // A source saved while esbuild ran is newer than this: the next start compiles again.
  writeFileSync(path.join(partial, '.built'), String(newest))
  rmSync(OUT, { recursive: true, force: true })
  try {
    renameSync(partial, OUT)
  } catch (error) {
    // Another start put its copy in place first: it is as new as this one.
    rmSync(partial, { recursive: true, force: true })
    if (!existsSync(STAMP)) throw error
  }
}

function compiledMain() {
  const esbuild = esbuildOrUndefined()
  if (esbuild === undefined) return undefined
  const { files, newest } = sources(SOURCE)
  const built = existsSync(STAMP) ? Number(readFileSync(STAMP, 'utf8')) : 0
  if (built < newest) {
    try {
      compile(esbuild, files, newest)
    } catch (error) {
      // A checkout this user cannot write in (or a source esbuild refuses) runs through tsx, as before.
      process.stderr.write(`toolexec: npm start runs the source through tsx: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`)
      return undefined
    }
  }
  return pathToFileURL(path.join(OUT, 'main.js')).href
}

const main = compiledMain()
if (main !== undefined) await import(main)
else {
  const { register } = createRequire(import.meta.url)('tsx/esm/api')
  register()
  await import(pathToFileURL(path.join(SOURCE, 'main.ts')).href)
}
