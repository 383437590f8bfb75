/**
 * What a start loads before its first request: the modules src/main.ts and src/server.ts
 * import statically, followed through every file they reach. `--help` loads the configuration
 * alone; the server does not load what only some servers or some requests use (the MCP SDK,
 * undici, pg, pino-pretty): those are imported where they are first needed.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')

/** Static imports and re-exports that load code (type-only ones do not), as written. */
function staticImports(file: string): string[] {
  const source = readFileSync(file, 'utf8')
  return [...source.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^'"]*?\sfrom\s+)?'([^']+)'/gm)].map((match) => match[1] as string)
}

/** The src files and the packages a module loads before any of its code runs. */
function loadedBy(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    for (const specifier of staticImports(path.join(ROOT, file))) {
      if (specifier.startsWith('.')) visit(path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), specifier.replace(/\.js$/, '.ts'))))
      else if (!specifier.startsWith('node:')) packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string))
    }
  }
  visit(entry)
  return { files, packages }
}

describe('what a start loads', () => {
  it('--help and --version: the configuration alone, no package and none of the server', () => {
    const { files, packages } = loadedBy('src/main.ts')
    expect([...packages]).toEqual([])
    expect(['src/server.ts', 'src/wiring.ts', 'src/http/app.ts', 'src/tools/builtin.ts'].filter((file) => files.has(file))).toEqual([])
  })

  it('the server: not the MCP SDK, undici, pg or pino-pretty, which are loaded at their first use', () => {
    const server = loadedBy('src/server.ts')
    const tools = loadedBy('src/tools/builtin.ts')
    const packages = new Set([...server.packages, ...tools.packages])
    expect(packages.has('fastify')).toBe(true)
    for (const lazy of ['@modelcontextprotocol/sdk', 'undici', 'pg', 'pino-pretty']) expect(packages.has(lazy), lazy).toBe(false)
  })
})
