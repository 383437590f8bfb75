/** `src/main.ts` as `npm start` runs it, in a child process, for tests of signals and exit. */
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
/** The URL in the server's "toolexec listening" log line, as JSON or as a readable line (--log-format pretty). */
const LISTENING = /"url":"(http:\/\/[^"]+)"|toolexec listening on (http:\/\/\S+)/

export interface MainChild {
  readonly url: string
  readonly child: ChildProcess
  /** The exit code; null when a signal ended the process. */
  readonly exited: Promise<number | null>
  /** What it has printed so far on stdout and on stderr. */
  output(): { stdout: string; stderr: string }
}

/** Starts the server on a free port with `dataDir` as data dir and workspace; the URL comes from its "listening" log line. */
/** `extraEnv` is added to the server's environment (a token, a config file, secrets a test looks for). */
export async function startMain(dataDir: string, shutdownGraceMs: number, extraEnv: Record<string, string> = {}): Promise<MainChild> {
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    PORT: '0',
    TOOLEXEC_DATA_DIR: dataDir,
    TOOLEXEC_WORKSPACE: dataDir,
    TOOLEXEC_SHUTDOWN_GRACE_MS: String(shutdownGraceMs),
    LOG_LEVEL: 'info',
    ...extraEnv,
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
      const match = LISTENING.exec(stdout)
      const url = match?.[1] ?? match?.[2]
      if (url !== undefined) resolve(url)
    })
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${stdout}${stderr}`)))
  })
  return { url, child, exited, output: () => ({ stdout, stderr }) }
}

export interface RefusedStart {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface MainRunOptions {
  /** Command-line arguments of src/main.ts. */
  readonly args?: readonly string[]
  /** Runs the process as this user and group (a root test run checks what an ordinary user meets). */
  readonly uid?: number
  readonly gid?: number
}

/**
 * Runs src/main.ts on `dataDir` where it is expected to refuse to start (or to print and exit).
 * One that starts anyway is killed as soon as it logs that it listens (its code is then null);
 * `timeoutMs` only ends one that hangs, so a slow start on a loaded machine is waited out.
 */
export async function runRefusedMain(dataDir: string, env: Record<string, string> = {}, timeoutMs = 60_000, options: MainRunOptions = {}): Promise<RefusedStart> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: '', PORT: '0', TOOLEXEC_DATA_DIR: dataDir, TOOLEXEC_WORKSPACE: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
    if (LISTENING.test(stdout)) child.kill('SIGKILL')
  })
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  try {
    // A start that cannot even spawn (EACCES for another uid) is the test's failure, not a hang.
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject)
      child.once('close', (exitCode) => resolve(exitCode))
    })
    return { code, stdout, stderr }
  } finally {
    clearTimeout(timer)
  }
}
