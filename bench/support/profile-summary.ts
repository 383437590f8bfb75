/**
 * `tsx bench/support/profile-summary.ts <file.cpuprofile> [top]`: self time by function
 * and by file from a `node --cpu-prof` profile, hottest first, for bench reports.
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: readonly number[]
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

const PROJECT_ROOT = `${process.cwd()}/`

function shortUrl(url: string): string {
  const inProject = url.indexOf(PROJECT_ROOT)
  const trimmed = inProject === -1 ? url : url.slice(inProject + PROJECT_ROOT.length)
  return trimmed.replace(/^file:\/\//, '').replace(/^node_modules\//, 'nm/')
}

function summarize(profile: CpuProfile, top: number): string {
  const byNode = new Map<number, number>()
  profile.samples.forEach((nodeId, i) => byNode.set(nodeId, (byNode.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const total = [...byNode.values()].reduce((sum, us) => sum + us, 0)
  const byFunction = new Map<string, number>()
  const byFile = new Map<string, number>()
  for (const node of profile.nodes) {
    const us = byNode.get(node.id) ?? 0
    const file = shortUrl(node.callFrame.url) || '(native)'
    const name = `${node.callFrame.functionName || '(anonymous)'} ${file}:${node.callFrame.lineNumber + 1}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + us)
    byFile.set(file, (byFile.get(file) ?? 0) + us)
  }
  const inclusive = inclusiveTimes(profile, byNode)
  const bySourceFunction = new Map<string, number>()
  for (const node of profile.nodes) {
    const file = shortUrl(node.callFrame.url)
    if (!file.startsWith('src/')) continue
    const name = `${node.callFrame.functionName || '(anonymous)'} ${file}:${node.callFrame.lineNumber + 1}`
    bySourceFunction.set(name, (bySourceFunction.get(name) ?? 0) + (inclusive.get(node.id) ?? 0))
  }
  const rows = (map: Map<string, number>): string =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`)
      .join('\n')
  return `total ${(total / 1000).toFixed(0)} ms sampled\n-- self time by function --\n${rows(byFunction)}\n-- self time by file --\n${rows(byFile)}\n-- total time (self + callees) of src/ functions; recursion counts twice --\n${rows(bySourceFunction)}`
}

/** Self plus callees' time per node; a function on the stack twice is counted twice. */
function inclusiveTimes(profile: CpuProfile, self: ReadonlyMap<number, number>): Map<number, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const totals = new Map<number, number>()
  const visit = (id: number): number => {
    const known = totals.get(id)
    if (known !== undefined) return known
    let sum = self.get(id) ?? 0
    for (const child of byId.get(id)?.children ?? []) sum += visit(child)
    totals.set(id, sum)
    return sum
  }
  for (const node of profile.nodes) visit(node.id)
  return totals
}

/** Where the time of functions named `name` comes from: their callers' stacks, hottest first. */
function callersOf(profile: CpuProfile, name: string, depth: number, top: number): string {
  const parent = new Map<number, ProfileNode>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node)
  const self = new Map<number, number>()
  profile.samples.forEach((nodeId, i) => self.set(nodeId, (self.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const inclusive = inclusiveTimes(profile, self)
  const stacks = new Map<string, number>()
  for (const node of profile.nodes) {
    if (node.callFrame.functionName !== name) continue
    const frames: string[] = []
    for (let up = parent.get(node.id); up !== undefined && frames.length < depth; up = parent.get(up.id)) {
      frames.push(`${up.callFrame.functionName || '(anonymous)'} ${shortUrl(up.callFrame.url)}:${up.callFrame.lineNumber + 1}`)
    }
    const key = frames.join(' < ')
    stacks.set(key, (stacks.get(key) ?? 0) + (inclusive.get(node.id) ?? 0))
  }
  return [...stacks.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([stack, us]) => `${(us / 1000).toFixed(0).padStart(7)} ms  ${name} < ${stack}`)
    .join('\n')
}

const [file, top = '30', callers] = process.argv.slice(2)
if (file === undefined) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [function name whose callers to show]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
console.log(callers === undefined ? summarize(profile, Number(top)) : callersOf(profile, callers, 6, Number(top)))
