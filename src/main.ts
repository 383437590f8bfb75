#!/usr/bin/env node
/** @module The `toolexec` command (and `npm start`): configuration from the environment and flags, then the server. */
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { ConfigError, configWarnings, helpText, loadConfig, requestedInfo, type ServerConfig } from './config.js'
import { StartPhases } from './start-phases.js'

/**
 * A signal sent to a process group (systemd's default KillMode, `kill -- -PGID`) reaches the
 * server twice under `npm start`: directly and forwarded by npm, a few ms apart. The same
 * signal again within this time is that one request; a person's second Ctrl-C comes later.
 */
const SAME_SIGNAL_MS = 100

async function main(): Promise<void> {
  // From the process's own start: Node's and this command's modules are the first phase.
  const phases = new StartPhases(0)
  phases.mark('boot')
  if (process.argv[2] === 'audit') await audit(process.argv.slice(3))
  const config = readConfig(process.argv.slice(2))
  for (const warning of configWarnings(config)) process.stderr.write(`toolexec: warning: ${warning}\n`)
  phases.mark('config')
  // Once, for the Bash tool and the server alike, started now so that bwrap runs while the
  // modules below load; awaited before any tool is made. `required` refuses to start without one.
  const probing = import('./tools/bash/sandbox-probe.js').then(({ probeSandboxAsync }) => probeSandboxAsync(config.sandboxMode))
  // Its refusal is reported where it is awaited, after the paths' own checks, as before.
  probing.catch(() => undefined)
  // Loaded only now, so that --help and --version answer without loading (or, under tsx, compiling) the server.
  const [{ StartupError }, { PolicyError }, { startServer }, { checkStartPaths }, { isStorageFull }, { builtinTools }] = await Promise.all([
    import('./contracts/errors.js'),
    import('./permissions/policy.js'),
    import('./server.js'),
    import('./start-paths.js'),
    import('./contracts/store.js'),
    import('./tools/builtin.js'),
  ])
  phases.mark('modules')
  const isRefusal = (error: unknown): error is Error => hasConfigCode(error) || error instanceof StartupError || error instanceof PolicyError
  let server
  try {
    checkStartPaths(config)
    const sandbox = await probing
    phases.mark('sandbox')
    server = await startServer(config, { tools: builtinTools({ sandbox }), sandbox, phases })
  } catch (error) {
    // A refusal exits at once: the probe first removes the workspace it made in TMPDIR.
    await probing.catch(() => undefined)
    if (isRefusal(error)) refuse(error.message)
    if (isStorageFull(error)) {
      refuse(`no space left in the data directory ${config.dataDir} (${(error as { code: string }).code}): free space there and start again`)
    }
    throw error
  }
  let first: { signal: NodeJS.Signals; at: number } | undefined
  const stop = (signal: NodeJS.Signals): void => {
    if (first !== undefined) {
      if (signal === first.signal && performance.now() - first.at < SAME_SIGNAL_MS) return
      // A second signal is someone who will not wait: stop now, as a crash would.
      process.exit(128 + (os.constants.signals[signal] ?? 0))
    }
    first = { signal, at: performance.now() }
    void server.close({ graceMs: config.shutdownGraceMs }).then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

/** `toolexec audit verify`: exits 0 (the chain holds), 1 (it does not) or 2 (it could not be read). */
async function audit(args: readonly string[]): Promise<never> {
  const { runAuditCommand } = await import('./audit-command.js')
  try {
    const code = await runAuditCommand(args, process.env, { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`toolexec: ${line}\n`) })
    process.exit(code)
  } catch (error) {
    refuse(error instanceof Error ? error.message : String(error))
  }
}

/** The configuration, or the help or version printed and exit 0, or one line and exit 2. */
function readConfig(argv: readonly string[]): ServerConfig {
  try {
    const info = requestedInfo(argv)
    if (info !== undefined) {
      process.stdout.write(info === 'help' ? helpText(packageVersion()) : `${packageVersion()}\n`)
      process.exit(0)
    }
    return loadConfig(argv, process.env)
  } catch (error) {
    // parseArgs throws with a code (ERR_PARSE_ARGS_UNKNOWN_OPTION and the like).
    if (error instanceof ConfigError) refuse(error.message)
    if (error instanceof Error && 'code' in error) refuse(`${error.message}; see --help`)
    throw error
  }
}

function refuse(message: string): never {
  process.stderr.write(`toolexec: ${message}\n`)
  process.exit(2)
}

/** package.json sits one level above both src/ and dist/, in a checkout and in an installed package. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  return manifest.version
}

function hasConfigCode(error: unknown): error is Error {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined
  return typeof code === 'string' && (code.startsWith('CONF_ERR_') || ['EXEC_ERR_DUPLICATE_TOOL', 'EXEC_ERR_INVALID_TOOL', 'EADDRINUSE', 'EACCES'].includes(code))
}

await main()
