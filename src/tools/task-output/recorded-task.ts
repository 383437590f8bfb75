/**
 * @module What TaskOutput and TaskStop say of a background task this process does not run: one
 * known only from its record (it ran on a server that stopped, on another node of a cluster, or
 * in this process before a restart). A task recorded as running that this process does not run
 * died with the server that ran it: it is lost, and its output up to then is in its file, when
 * that file can be read here.
 */
import { accessSync, constants } from 'node:fs'
import type { BackgroundTaskRecord } from '../../contracts/background-task-record.js'
import { DEFAULT_CAPTURE_SIZES, OutputReader, type CapturedOutput } from '../bash/captured-output.js'
import type { TaskOutputReport } from './task-report.js'

/** The status to report: a task this process does not run is not running anywhere. */
export function recordedStatus(record: BackgroundTaskRecord): string {
  return record.status === 'running' ? 'lost' : record.status
}

/** Why a lost task has no more output, and where what it wrote is. */
export function lostReason(record: BackgroundTaskRecord, readable: boolean): string {
  const stopped = `the server that ran it stopped (node ${record.nodeId}) before it ended`
  if (record.outputPath === null) return `${stopped}; its output was not kept`
  return readable ? `${stopped}; its output up to then is in ${record.outputPath}` : `${stopped}; its output was written to ${record.outputPath}, which this server cannot read`
}

/** Whether the file at `path` can be read here. */
export function readableHere(path: string | null): boolean {
  if (path === null) return false
  try {
    accessSync(path, constants.R_OK)
    return true
  } catch {
    return false
  }
}

/** What a task known only from its record has written, when its file can be read here. */
export function readRecordedOutput(path: string | null): CapturedOutput | undefined {
  if (path === null) return undefined
  let reader: OutputReader
  try {
    reader = new OutputReader(path)
  } catch {
    return undefined
  }
  try {
    return reader.capture(reader.size(), DEFAULT_CAPTURE_SIZES)
  } catch {
    return undefined
  } finally {
    reader.close()
  }
}

/** Why a task ended here did not leave its output behind. */
function goneText(record: BackgroundTaskRecord): string {
  return `Task ${record.id} ended (${record.status}) on node ${record.nodeId}; its output is no longer kept`
}

export function recordedTaskReport(record: BackgroundTaskRecord): TaskOutputReport {
  const status = recordedStatus(record)
  const output = readRecordedOutput(record.outputPath)
  const error = status === 'lost' ? `Task ${record.id} was lost: ${lostReason(record, output !== undefined)}` : output === undefined ? goneText(record) : undefined
  return {
    taskId: record.id,
    taskType: 'local_bash',
    description: record.description,
    command: record.command,
    status,
    retrievalStatus: 'success',
    exitCode: record.exitCode,
    output: output?.text ?? '',
    totalBytes: output?.totalBytes ?? 0,
    truncated: output?.omitted !== undefined,
    persistedPath: output === undefined ? undefined : (record.outputPath ?? undefined),
    error,
  }
}
