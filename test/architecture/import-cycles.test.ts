/**
 * No module of src imports itself back through others: every import, type-only ones too,
 * points one way. The strongly connected components of the import graph are the cycles.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const SRC = path.join(ROOT, 'src')

/**
 * Cycles that exist and are not broken yet, each as its sorted member list. Empty: a new
 * entry here needs a reason beside it.
 */
const KNOWN_CYCLES: readonly (readonly string[])[] = []

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : []
  })
}

/** The files of src a module imports or re-exports, by relative specifier (`./x.js` is `./x.ts`). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, false)
  const targets: string[] = []
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith('.')) continue
    const resolved = path.resolve(path.dirname(file), fileName).replace(/\.js$/, '.ts')
    const candidates = [resolved, `${resolved}.ts`, path.join(resolved, 'index.ts')]
    const target = candidates.find((candidate) => known.has(candidate))
    if (target !== undefined) targets.push(target)
  }
  return targets
}

/** Tarjan's strongly connected components with more than one member, or one that imports itself. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (node: string): void => {
    index.set(node, next)
    low.set(node, next)
    next++
    stack.push(node)
    onStack.add(node)
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number))
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop() as string
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component)
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return cycles
}

function importGraph(): Map<string, string[]> {
  const files = sourceFiles(SRC)
  const known = new Set(files)
  return new Map(files.map((file) => [file, importsOf(file, known)]))
}

describe('imports of src', () => {
  it('form no cycle', () => {
    const cycles = cyclesOf(importGraph()).map((members) => members.map((file) => path.relative(ROOT, file)).sort())
    const known = new Set(KNOWN_CYCLES.map((members) => members.join(' <-> ')))
    const unknown = cycles.map((members) => members.join(' <-> ')).filter((cycle) => !known.has(cycle))
    expect(unknown).toEqual([])
  })

  it('the check finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', ['e']],
    ])
    expect(cyclesOf(graph).map((members) => members.sort())).toEqual([['a', 'b', 'c'], ['e']])
  })
})
