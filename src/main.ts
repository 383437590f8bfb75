/** @module `npm start`: configuration from the environment and flags, then the server. */
import os from 'node:os'
import { ConfigError, loadConfig } from './config.js'
import { StartupError } from './contracts/errors.js'
import { PolicyError } from './permissions/policy.js'
import { startServer } from './server.js'
import { isStorageFull } from './storage/storage-space.js'
import { probeSandbox } from './tools/bash/sandbox-probe.js'
import { builtinTools } from './tools/builtin.js'

async function main(): Promise<void> {
  let config
  try {
    config = loadConfig(process.argv.slice(2), process.env)
  } catch (error) {
    if (error instanceof ConfigError || (error instanceof Error && 'code' in error)) {
      process.stderr.write(`toolexec: ${error.message}\n`)
      process.exit(2)
    }
    throw error
  }
  let server
  try {
    // Once, for the Bash tool and the server alike: `required` refuses to start without one.
    const sandbox = probeSandbox(config.sandboxMode)
    server = await startServer(config, { tools: builtinTools({ sandbox }), sandbox })
  } catch (error) {
    if (error instanceof StartupError || error instanceof PolicyError || isConfigCode(error)) {
      process.stderr.write(`toolexec: ${error.message}\n`)
      process.exit(2)
    }
    if (isStorageFull(error)) {
      process.stderr.write(`toolexec: no space left in the data directory ${config.dataDir} (${(error as { code: string }).code}): free space there and start again\n`)
      process.exit(2)
    }
    throw error
  }
  let stopping = false
  const stop = (signal: NodeJS.Signals): void => {
    // A second signal is someone who will not wait: stop now, as a crash would.
    if (stopping) process.exit(128 + (os.constants.signals[signal] ?? 0))
    stopping = true
    void server.close({ graceMs: config.shutdownGraceMs }).then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

function isConfigCode(error: unknown): error is Error {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' && (code.startsWith('CONF_ERR_') || ['EXEC_ERR_DUPLICATE_TOOL', 'EXEC_ERR_INVALID_TOOL', 'EADDRINUSE', 'EACCES'].includes(code))
}

await main()
