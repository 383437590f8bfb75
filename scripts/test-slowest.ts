/**
 * `npm run test:slowest [-- vitest arguments]`: runs the suite (or the files and projects given)
 * as `npm test` does, then names the 20 slowest test files by wall time, from the file's start
 * to its end in its worker (import and collection included), and the slowest tests within them:
 * where the suite's minutes go. A file of both projects (SQLite and PostgreSQL) is counted once
 * with the time of both runs. The report of the run is kept in test-results/vitest-report.json.
 * TOP sets how many files are named (default 20). Exits with vitest's code.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

interface TestReport {
  readonly startTime: number
  readonly testResults: readonly {
    readonly name: string
    readonly startTime: number
    readonly endTime: number
    readonly assertionResults: readonly { readonly fullName: string; readonly duration?: number | null }[]
  }[]
}

interface FileTime {
  readonly file: string
  ms: number
  runs: number
  tests: { name: string; ms: number }[]
}

const TOP = Number(process.env.TOP ?? 20)
const REPORT = path.join('test-results', 'vitest-report.json')

function run(args: readonly string[]): number {
  mkdirSync(path.dirname(REPORT), { recursive: true })
  const result = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${REPORT}`, ...args], { stdio: 'inherit' })
  return result.status ?? 1
}

function fileTimes(report: TestReport): FileTime[] {
  const byFile = new Map<string, FileTime>()
  for (const result of report.testResults) {
    const file = path.relative(process.cwd(), result.name)
    const entry = byFile.get(file) ?? { file, ms: 0, runs: 0, tests: [] }
    entry.ms += result.endTime - result.startTime
    entry.runs++
    entry.tests.push(...result.assertionResults.map((test) => ({ name: test.fullName, ms: test.duration ?? 0 })))
    byFile.set(file, entry)
  }
  return [...byFile.values()].sort((a, b) => b.ms - a.ms)
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

function print(times: readonly FileTime[]): void {
  const total = times.reduce((sum, entry) => sum + entry.ms, 0)
  console.log(`\nthe ${Math.min(TOP, times.length)} slowest of ${times.length} test files (${seconds(total)} of file time in all workers):`)
  for (const [index, entry] of times.slice(0, TOP).entries()) {
    const share = ((entry.ms / total) * 100).toFixed(1)
    console.log(`${String(index + 1).padStart(3)}. ${seconds(entry.ms).padStart(8)} ${share.padStart(5)}%  ${entry.file}${entry.runs > 1 ? ` (${entry.runs} projects)` : ''}`)
    const slowest = [...entry.tests].sort((a, b) => b.ms - a.ms).slice(0, 2)
    for (const test of slowest) if (test.ms >= 1000) console.log(`${' '.repeat(22)}${seconds(test.ms)}  ${test.name.slice(0, 110)}`)
  }
}

const code = run(process.argv.slice(2))
try {
  print(fileTimes(JSON.parse(readFileSync(REPORT, 'utf8')) as TestReport))
} catch (error) {
  console.error(`no report to read in ${REPORT}: ${(error as Error).message}`)
}
process.exit(code)
