/**
 * Every import of src points down the layers that docs/architecture.md lists, in
 * its table "layer | may import": a file imports its own layer and the layers its row names,
 * and a row names only rows below it. That page is read here, so that it and the imports
 * cannot drift apart. Type-only imports and re-exports count as imports.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SRC = path.join(ROOT, 'src')
const EVERY_LAYER_BELOW = 'every layer below'

interface Layer {
  /** The folders (`src/http`) or single files (`src/main.ts`) the layer holds. */
  readonly members: readonly string[]
  /** The members of the layers it may import, or EVERY_LAYER_BELOW. */
  readonly imports: readonly string[] | typeof EVERY_LAYER_BELOW
  readonly label: string
}

/** Imports the table does not allow, each with its reason. Empty is the goal. */
const EXCEPTIONS: readonly { readonly from: string; readonly to: string; readonly reason: string }[] = []

/**
 * Imports of storage from sessions and http that the adoption of the Store port (issue 16) is
 * removing; an entry that no longer imports storage fails, so that it is taken out.
 */
const PENDING_STORAGE_IMPORTS: readonly string[] = []

/** docs/architecture.md, up to its second-level sections: the layer table is in its opening part. */
function architectureSection(page: string): string {
  if (!page.startsWith('# Architecture\n')) throw new Error('docs/architecture.md does not start with "# Architecture"')
  const end = page.indexOf('\n## ')
  return page.slice(0, end < 0 ? undefined : end)
}

const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string)

/** The rows of the "layer | may import" table, top to bottom. */
function parseLayers(section: string): Layer[] {
  const lines = section.split('\n')
  const header = lines.findIndex((line) => /^\|\s*layer\s*\|\s*may import\s*\|$/.test(line.trim()))
  if (header < 0) throw new Error('the architecture section has no "| layer | may import |" table')
  const rows: Layer[] = []
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break
    const [, left = '', right = ''] = line.split('|').map((cell) => cell.trim())
    const imports = right === EVERY_LAYER_BELOW ? EVERY_LAYER_BELOW : right === 'nothing' ? [] : codeSpans(right)
    rows.push({ members: codeSpans(left), imports, label: left })
  }
  return rows
}

/** The chain of "Dependencies point inward: `a -> b -> c`". */
function parseChain(section: string): string[] {
  const match = /Dependencies point inward: `([^`]+)`/.exec(section)
  if (match === null) throw new Error('the architecture section states no "Dependencies point inward: `...`"')
  return (match[1] as string).split('->').map((name) => name.trim())
}

function layerIndexOf(layers: readonly Layer[], file: string): number {
  return layers.findIndex((layer) => layer.members.some((member) => file === member || file.startsWith(`${member}/`)))
}

/** What a layer may import: its own members and those of the rows it names (or every row below). */
function allowedOf(layers: readonly Layer[], index: number): Set<number> {
  const layer = layers[index] as Layer
  const allowed = new Set([index])
  layers.forEach((other, at) => {
    const named = layer.imports === EVERY_LAYER_BELOW ? at > index : other.members.some((member) => layer.imports.includes(member))
    if (named) allowed.add(at)
  })
  return allowed
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : []
  })
}

/** The files of src a module imports or re-exports, as paths relative to the root (`src/x/y.ts`). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return info.importedFiles.filter(({ fileName }) => fileName.startsWith('.')).map(({ fileName }) => path.relative(ROOT, path.resolve(path.dirname(file), fileName).replace(/\.js$/, '.ts')))
}

/** Every import the table does not allow, as `file -> import (layer -> layer)`. */
function upwardImports(layers: readonly Layer[], graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = []
  for (const [file, targets] of graph) {
    const from = layerIndexOf(layers, file)
    if (from < 0) {
      found.push(`${file}: in no layer of the architecture table`)
      continue
    }
    const allowed = allowedOf(layers, from)
    for (const target of targets) {
      const to = layerIndexOf(layers, target)
      if (to >= 0 && allowed.has(to)) continue
      found.push(`${file} -> ${target} (${layers[from]?.label} -> ${to < 0 ? 'no layer' : layers[to]?.label})`)
    }
  }
  return found
}

function excused(violation: string): boolean {
  const [file = '', rest = ''] = violation.split(' -> ')
  if (EXCEPTIONS.some((exception) => exception.from === file && rest.startsWith(`${exception.to}/`))) return true
  return PENDING_STORAGE_IMPORTS.includes(file) && rest.startsWith('src/storage/')
}

const section = architectureSection(readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8'))
const layers = parseLayers(section)
const graph = new Map(sourceFiles(SRC).map((file) => [path.relative(ROOT, file), importsOf(file)]))

describe('the layers of src', () => {
  it('docs/architecture.md names each layer once, and each row only layers below it', () => {
    const members = layers.flatMap((layer) => layer.members)
    expect(new Set(members).size).toBe(members.length)
    const upward = layers.flatMap((layer, index) =>
      layer.imports === EVERY_LAYER_BELOW
        ? []
        : layer.imports.filter((name) => !layers.slice(index + 1).some((below) => below.members.includes(name))).map((name) => `${layer.label} may import ${name}, which is not below it`),
    )
    expect(upward).toEqual([])
  })

  it('the chain "Dependencies point inward" follows the table', () => {
    const chain = parseChain(section)
    const indexOf = (name: string): number => (name === 'wiring' ? layers.findIndex((layer) => layer.label.includes('wiring')) : layerIndexOf(layers, `src/${name}`))
    const indexes = chain.map(indexOf)
    expect(
      indexes.every((index) => index >= 0),
      `every name of ${chain.join(' -> ')} is a layer`,
    ).toBe(true)
    const broken = chain.slice(1).filter((_name, at) => !allowedOf(layers, indexes[at] as number).has(indexes[at + 1] as number) || (indexes[at] as number) >= (indexes[at + 1] as number))
    expect(broken).toEqual([])
  })

  it('every import of src points down the table', () => {
    expect(upwardImports(layers, graph).filter((violation) => !excused(violation))).toEqual([])
  })

  it('each exception and pending import still exists', () => {
    const violations = upwardImports(layers, graph)
    const stale = [
      ...EXCEPTIONS.filter((exception) => !violations.some((violation) => violation.startsWith(`${exception.from} -> ${exception.to}/`))).map((exception) => exception.from),
      ...PENDING_STORAGE_IMPORTS.filter((file) => !violations.some((violation) => violation.startsWith(`${file} -> src/storage/`))),
    ]
    expect(stale, 'remove these from EXCEPTIONS or PENDING_STORAGE_IMPORTS').toEqual([])
  })

  it('the check finds an import that points up or sideways, and a file in no layer', () => {
    const table = parseLayers(['| layer | may import |', '|---|---|', '| `src/top` | `src/low` |', '| `src/side` | `src/low` |', '| `src/low` | nothing |'].join('\n'))
    const imports = new Map([
      ['src/top/a.ts', ['src/low/b.ts', 'src/top/c.ts']],
      ['src/low/b.ts', ['src/top/a.ts']],
      ['src/side/d.ts', ['src/top/a.ts']],
      ['src/elsewhere.ts', []],
    ])
    expect(upwardImports(table, imports)).toEqual([
      'src/low/b.ts -> src/top/a.ts (`src/low` -> `src/top`)',
      'src/side/d.ts -> src/top/a.ts (`src/side` -> `src/top`)',
      'src/elsewhere.ts: in no layer of the architecture table',
    ])
  })
})
