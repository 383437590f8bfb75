/**
 * @module `toolexec audit verify`: walks the audit log of the database the server's own settings
 * name (--data-dir, TOOLEXEC_DATABASE_URL) and says whether its chain holds. Exit 0: every entry's
 * hash and link is right (and the kept head given with --head is in it); 1: the first wrong one
 * is named; 2: the command or the database could not be used.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { pino } from 'pino'
import type { AuditRecord } from './contracts/store.js'
import { loadConfig } from './config.js'
import { allEntries, verifyChain, type ChainReport } from './storage/audit-chain.js'
import { openStore, SQLITE_FILE } from './storage/open-store.js'

export const AUDIT_USAGE = 'usage: toolexec audit verify [--head <hash>] [--data-dir <dir> | --database-url <url>]'

interface Output {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
}

/** The exit code of `toolexec audit ...args`. */
export async function runAuditCommand(args: readonly string[], env: NodeJS.ProcessEnv, output: Output): Promise<number> {
  const [command, ...rest] = args
  if (command !== 'verify') {
    output.err(AUDIT_USAGE)
    return 2
  }
  const { kept, settings } = takeHead(rest)
  const config = loadConfig(settings, env)
  const file = path.join(config.dataDir, SQLITE_FILE)
  if (config.databaseUrl === undefined && !existsSync(file)) {
    output.err(`no database at ${file}: give the server's --data-dir or TOOLEXEC_DATABASE_URL`)
    return 2
  }
  const opened = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, logger: pino({ level: 'silent' }) })
  try {
    let keptSeen = false
    const report = await verifyChain(watched(allEntries(opened.store.audit), (entry) => (keptSeen ||= entry.hash === kept)))
    return told(report, kept, keptSeen, output)
  } finally {
    await opened.close()
  }
}

function told(report: ChainReport, kept: string | undefined, keptSeen: boolean, output: Output): number {
  const head = `head ${report.head} (entry ${report.headSeq})`
  if (report.broken !== undefined) {
    output.out(`audit log broken at entry ${report.broken.seq}: ${report.broken.reason}`)
    output.out(`the ${report.count} entries before it are intact; ${head}`)
    return 1
  }
  output.out(`audit log intact: ${report.count} entries, ${head}`)
  if (kept !== undefined && !keptSeen) {
    output.out(`the kept head ${kept} is not in the log: entries were removed from its end, or the log was rewritten`)
    return 1
  }
  output.out('keep the head hash: `toolexec audit verify --head <hash>` later tells entries removed from the end, which the chain alone cannot')
  return 0
}

async function* watched(entries: AsyncIterable<AuditRecord>, see: (entry: AuditRecord) => void): AsyncGenerator<AuditRecord> {
  for await (const entry of entries) {
    see(entry)
    yield entry
  }
}

/** --head is this command's own flag; the others are the server's settings. */
function takeHead(args: readonly string[]): { kept: string | undefined; settings: string[] } {
  const settings = [...args]
  const at = settings.findIndex((arg) => arg === '--head' || arg.startsWith('--head='))
  if (at < 0) return { kept: undefined, settings }
  const [flag] = settings.splice(at, 1)
  const kept = flag?.includes('=') === true ? flag.slice('--head='.length) : settings.splice(at, 1)[0]
  return { kept: kept?.toLowerCase(), settings }
}
