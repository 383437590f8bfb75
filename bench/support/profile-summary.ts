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

function shortUrl(url: string): string {
  const inProject = url.indexOf('/work/main/')
  const trimmed = inProject === -1 ? url : url.slice(inProject + '/work/main/'.length)
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

const [file, top = '30'] = process.argv.slice(2)
if (file === undefined) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]')
console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(top)))
