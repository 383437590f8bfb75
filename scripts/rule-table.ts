/**
 * Writes the table of SPEC rules (docs/rules-and-tests.md) (R1..R43) with the test files whose test titles
 * name each rule. `npm run rules` rewrites it; test/readme.test.ts fails when it is stale.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The page that carries the rule table. */
export const RULES_PAGE = path.join(ROOT, 'docs', 'rules-and-tests.md')
export const RULE_COUNT = 43
const BEGIN = '<!-- rules:begin -->'
const END = '<!-- rules:end -->'

export const RULE_TITLES: readonly string[] = [
  'Four operations: execute, executeBatch, executeSchedule, trackExternalBackgroundTask',
  'Built once with its ports; nothing reaches for a global',
  'Flags from the registry; readOnly only with scope none',
  'canRunInParallel',
  "Grouping in the model's order, at most 10 per group",
  'Declared dependencies, topological order, cycle detection',
  'Built-ins that always run alone; MCP annotations',
  'Groups in sequence, calls of a group together',
  'A turn stop cancels every later group with the exact text',
  'A failure does not skip later groups',
  'Streaming early dispatch',
  'Pipeline order',
  'Resolved input is what is approved and what runs',
  'Permission order: service, PreToolUse, memory files',
  'prepareApproval only narrows or previews',
  'Client answer races the PermissionRequest hooks',
  'Default broker denies: No permission client configured',
  'Approval wait has no limit unless configured',
  'Timer starts after permission',
  'resolveTimeoutMs priority, cap and grace',
  'Grace for the tool’s own timeout (Bash +6 s)',
  'Pausable deadline while queued for a model',
  'Cancellation before, during, and timeout',
  'Cancellation and timeout run PostToolUseFailure (isInterrupt)',
  'One builder of failed results',
  'Model-facing error texts and projection',
  'Empty name, turn control and hook context added afterwards',
  'What history treats as an error',
  'Hook additional context, numbered',
  'Turn control attached in one module',
  'Empty output text',
  'Budget: inline, artifact envelope, truncation',
  'Envelope lines',
  'Preview cut',
  'Smaller budget wins; screenshot frames',
  'Artifact location, name and URI; media saved',
  'Two projections: modelContent and the ToolCallResult event',
  'Display union and its limits',
  'Stored records replay exactly',
  'ToolCallStarted carries recomputed flags',
  'One span per call; unknown names',
  'totalMs and permissionWaitMs',
  'Log events',
]

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return testFiles(full)
    return name.endsWith('.test.ts') ? [full] : []
  })
}

/** Test titles start with the rule they prove: it('R5 ...'), it.each(...)('R4 %s'). */
const TITLE = /\(\s*['"`](?:[^'"`]*?\s)?(R\d{1,2})\b/g

export function rulesByFile(root = ROOT): Map<number, string[]> {
  const found = new Map<number, string[]>()
  for (const file of testFiles(path.join(root, 'test')).sort()) {
    const relative = path.relative(root, file)
    for (const match of readFileSync(file, 'utf8').matchAll(TITLE)) {
      const rule = Number((match[1] as string).slice(1))
      const files = found.get(rule) ?? []
      if (!files.includes(relative)) files.push(relative)
      found.set(rule, files)
    }
  }
  return found
}

export function ruleTable(root = ROOT): string {
  const found = rulesByFile(root)
  const rows = RULE_TITLES.map((title, index) => {
    const files = found.get(index + 1) ?? []
    const cell = files.length === 0 ? '**none**' : files.map((file) => `\`${file}\``).join(', ')
    return `| R${index + 1} | ${title} | ${cell} |`
  })
  return [BEGIN, '| Rule | What | Proved in |', '|---|---|---|', ...rows, END].join('\n')
}

export function replaceTable(readme: string, table: string): string {
  const start = readme.indexOf(BEGIN)
  const end = readme.indexOf(END)
  if (start < 0 || end < 0) throw new Error('docs/rules-and-tests.md has no rules markers')
  return readme.slice(0, start) + table + readme.slice(end + END.length)
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const file = RULES_PAGE
  writeFileSync(file, replaceTable(readFileSync(file, 'utf8'), ruleTable()))
}
