/**
 * Child-process entry point of the crash test:
 *   node --import tsx test/support/crash-server.ts <dataDir> <markerDir> [<databaseUrl>]
 * Starts the real server (startServer + loadConfig, so crash recovery runs at start) on
 * 127.0.0.1 with counted fixture tools, then prints `{"url": ..., "pid": ..., "backend": ...}` as one JSON
 * line on stdout once listening. It is meant to die by SIGKILL; SIGTERM closes it cleanly,
 * letting running calls finish for CRASH_SHUTDOWN_GRACE_MS (default 0) first. As a node of a
 * cluster test: CRASH_NODE_ID, CRASH_LEASE_MS, CRASH_WORKSPACE and CRASH_ARTIFACT_DIR (the ones all nodes share).
 * CRASH_BACKGROUND_TASKS=1 adds the built-in Bash, TaskOutput and TaskStop (no sandbox).
 */
import { pino } from 'pino'
import { loadConfig } from '../../src/config.js'
import { startServer } from '../../src/server.js'
import { createBashTool } from '../../src/tools/bash/index.js'
import { probeSandbox } from '../../src/tools/bash/sandbox-probe.js'
import { createTaskOutputTool } from '../../src/tools/task-output/index.js'
import { createTaskStopTool } from '../../src/tools/task-stop/index.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { crashTools } from './crash-tools.js'

/** The built-in tools of background commands, unconfined: a test finds the command's processes by their pids. */
function backgroundTaskTools(): ToolEntry[] {
  if (process.env.CRASH_BACKGROUND_TASKS !== '1') return []
  return [createBashTool({ sandbox: probeSandbox('off') }), createTaskOutputTool(), createTaskStopTool()] as ToolEntry[]
}

async function main(): Promise<void> {
  const [dataDir, markerDir, databaseUrl] = process.argv.slice(2)
  if (dataDir === undefined || markerDir === undefined) {
    process.stderr.write('usage: crash-server.ts <dataDir> <markerDir> [<databaseUrl>]\n')
    process.exit(2)
  }
  const level = process.env.CRASH_LOG_LEVEL ?? 'silent'
  const database = databaseUrl === undefined ? [] : ['--database-url', databaseUrl]
  // A node of a cluster test: its name, lease time and the workspace all nodes share.
  const cluster = [
    ...(process.env.CRASH_NODE_ID === undefined ? [] : ['--node-id', process.env.CRASH_NODE_ID]),
    ...(process.env.CRASH_LEASE_MS === undefined ? [] : ['--lease-ms', process.env.CRASH_LEASE_MS]),
    ...(process.env.CRASH_ARTIFACT_DIR === undefined ? [] : ['--artifact-dir', process.env.CRASH_ARTIFACT_DIR]),
  ]
  const workspace = process.env.CRASH_WORKSPACE ?? dataDir
  const config = loadConfig(['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--workspace', workspace, ...database, ...cluster], { LOG_LEVEL: level })
  const background = backgroundTaskTools()
  const tools = [...crashTools(markerDir), ...background]
  const server = await startServer(config, { tools, logger: pino({ level }, pino.destination(2)), sandbox: background.length > 0 ? probeSandbox('off') : undefined })
  process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid, backend: server.runtime.database.backend })}\n`)
  const graceMs = Number(process.env.CRASH_SHUTDOWN_GRACE_MS ?? '0')
  process.once('SIGTERM', () => {
    void server.close({ graceMs }).then(() => process.exit(0))
  })
}

await main()
