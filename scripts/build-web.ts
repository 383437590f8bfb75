/**
 * @module Builds the web console into web/dist: one JS bundle and one CSS file, named by their
 * content's hash, and the page that loads them. The output depends on the sources and the
 * pinned esbuild alone, so the committed web/dist can be checked against a fresh build.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const WEB_DIST = path.join(REPO_ROOT, 'web', 'dist')

/** Writes the console into `outDir` (emptied first); returns the names of the files written. */
export async function buildWeb(outDir: string = WEB_DIST): Promise<string[]> {
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: { app: 'web/src/main.tsx', styles: 'web/src/styles.css' },
    entryNames: '[name]',
    outdir: outDir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome111', 'firefox115', 'safari16'],
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'eof',
    banner: { js: '/*! toolexec web console; bundles Preact 11.2.0 (MIT License, https://github.com/preactjs/preact) */' },
    charset: 'utf8',
    write: false,
    logLevel: 'warning',
  })
  // Named by a hash of the bytes written, not esbuild's [hash], which also changes with sources
  // whose code never reaches the bundle (the contracts the console imports only as types).
  const outputs = result.outputFiles.map((file) => {
    const name = contentHashedName(path.basename(file.path), file.contents)
    writeFileSync(path.join(outDir, name), file.contents)
    return name
  })
  const script = outputs.find((name) => name.endsWith('.js'))
  const styles = outputs.find((name) => name.endsWith('.css'))
  if (script === undefined || styles === undefined) throw new Error(`esbuild wrote no script or no styles: ${outputs.join(', ')}`)
  const page = readFileSync(path.join(REPO_ROOT, 'web', 'index.html'), 'utf8')
    .replace('%SCRIPT%', script)
    .replace('%STYLES%', styles)
  writeFileSync(path.join(outDir, 'index.html'), page)
  return [...outputs, 'index.html'].sort()
}

function contentHashedName(name: string, contents: Uint8Array): string {
  const hash = createHash('sha256').update(contents).digest('hex').slice(0, 12)
  const extension = path.extname(name)
  return `${name.slice(0, name.length - extension.length)}-${hash}${extension}`
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildWeb()
  for (const file of files) console.log(`web/dist/${file}`)
}
