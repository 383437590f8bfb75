/**
 * @module What a Bash call returns: a finished command's bounded output and status, or the
 * id of a command left running in the background.
 */
import type { ArtifactRef } from '../../contracts/ports.js'
import type { CommandExit } from './command-runner.js'
import type { CapturedOutput } from './captured-output.js'

export interface BashCommandOutput {
  readonly command: string
  /** The process group of the run (its leader's pid). */
  readonly pid: number | undefined
  /** stdout and stderr interleaved; when too large, head and tail around an omission marker. */
  readonly output: string
  readonly exitCode: number | null
  /** Ended by its timeout or an abort; R28 treats it as an error. */
  readonly interrupted: boolean
  readonly timedOut: boolean
  readonly timeoutMs: number
  readonly isError: boolean
  /** stdout and stderr together (one file, so not counted apart). */
  readonly totalBytes: number
  readonly durationMs: number
  /** Ran in the sandbox (confined by the kernel), not directly on the host. */
  readonly confined: boolean
  /** Set when the middle of the output is not in `output`. */
  readonly omitted?: { readonly head: string; readonly tail: string; readonly bytes: number } | undefined
  /** The whole output, streamed to an artifact while it was produced. */
  readonly persistedPath?: string | undefined
  readonly artifactUri?: string | undefined
  readonly artifactError?: string | undefined
  /** The artifact itself, so the executor reports it instead of writing another. */
  readonly artifact?: ArtifactRef | undefined
}

export interface BashBackgroundOutput {
  readonly command: string
  readonly backgroundTaskId: string
  readonly confined: boolean
}

export type BashOutput = BashCommandOutput | BashBackgroundOutput

export function isBackgroundOutput(output: BashOutput): output is BashBackgroundOutput {
  return 'backgroundTaskId' in output
}

export function commandOutput(command: string, exit: CommandExit, captured: CapturedOutput, timeoutMs: number, confined: boolean): BashCommandOutput {
  const interrupted = exit.stopped !== undefined
  return {
    command,
    pid: exit.pid,
    output: captured.text,
    exitCode: exit.exitCode,
    interrupted,
    timedOut: exit.stopped === 'timeout',
    timeoutMs,
    isError: interrupted,
    totalBytes: captured.totalBytes,
    durationMs: exit.durationMs,
    confined,
    omitted: captured.omitted,
    persistedPath: captured.artifact?.path,
    artifactUri: captured.artifact?.uri,
    artifactError: captured.artifactError,
    artifact: captured.artifact,
  }
}
