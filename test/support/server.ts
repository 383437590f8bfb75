/** A real toolexec server on 127.0.0.1 with a temporary data dir, for HTTP tests. */
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { startServer, type RunningServer, type ServerParts } from '../../src/server.js'
import { rowCounts, type StoreTarget } from './row-counts.js'
import { editTool, readTool, sleepTool } from './tools.js'
import { tempDirSync } from './temp-dirs.js'
import { databaseUrlOf, testBackend } from './test-database.js'

export interface TestServer extends RunningServer {
  readonly dataDir: string
  /** The PostgreSQL database it stores in (the postgres test project); undefined on SQLite. */
  readonly databaseUrl: string | undefined
  /** fetch against the server with JSON in and out. */
  readonly json: <T = unknown>(method: string, route: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: T }>
}

export const DEFAULT_TEST_TOOLS: readonly ToolEntry[] = [readTool, editTool, sleepTool()]

export interface TestServerOptions extends Partial<ServerParts> {
  readonly dataDir?: string
  readonly env?: Record<string, string>
  /** Where the server stores instead of the project's own database (a test's own PostgreSQL server). */
  readonly databaseUrl?: string
  /** The default workspace of its sessions (the data directory when absent). */
  readonly workspace?: string
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDirSync('test')
  const databaseUrl = options.databaseUrl ?? (await databaseUrlOf(dataDir))
  const database = databaseUrl === undefined ? [] : ['--database-url', databaseUrl]
  const config = loadConfig(['--port', '0', '--data-dir', dataDir, '--workspace', options.workspace ?? dataDir, ...database], { LOG_LEVEL: 'silent', ...options.env })
  const server = await startServer(config, {
    // No 8 MiB space reserve per test server unless a test asks for one.
    storageSpace: { reserveBytes: 0 },
    ...options,
    tools: options.tools ?? DEFAULT_TEST_TOOLS,
    logger: options.logger ?? pino({ level: 'silent' }),
  })
  if (server.runtime.database.backend !== testBackend()) {
    await server.close()
    throw new Error(`a test server of the ${testBackend()} project stores in ${server.runtime.database.backend}`)
  }
  const json = async <T>(method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> => {
    const init: RequestInit = { method, headers: { ...headers } }
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body)
      ;(init.headers as Record<string, string>)['content-type'] = 'application/json'
    }
    const response = await fetch(`${server.url}${route}`, init)
    const text = await response.text()
    return { status: response.status, body: (text.length > 0 ? JSON.parse(text) : undefined) as T }
  }
  return { ...server, dataDir, databaseUrl, json, close: (options) => server.close(options) }
}

/**
 * Row counts once nothing more is being written (two reads 20 ms apart agree): a test that
 * proves a rejected request wrote nothing must not count what earlier work still commits.
 */
export async function settledRowCounts(server: StoreTarget): Promise<Record<string, number>> {
  let last = JSON.stringify(await rowCounts(server))
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    const next = JSON.stringify(await rowCounts(server))
    if (next === last) return JSON.parse(next) as Record<string, number>
    last = next
  }
}
