/**
 * @module Whether a command's output may have been cut for want of space. The command writes
 * its output file itself, so a write the disk refused (ENOSPC) is never seen here; a file
 * system left with almost no free space when the command is over is the sign of it.
 */
import { statfsSync } from 'node:fs'
import { dirname } from 'node:path'

/** Less free space than this when the command is over: its output may have been cut. */
export const OUTPUT_SPACE_FLOOR_BYTES = 1024 * 1024

/** Why the output in `file` may be incomplete, or undefined when its file system had room. */
export function outputSpaceRanOut(file: string, floorBytes = OUTPUT_SPACE_FLOOR_BYTES): string | undefined {
  const dir = dirname(file)
  let free: number
  try {
    const stats = statfsSync(dir)
    free = stats.bavail * stats.bsize
  } catch {
    return undefined
  }
  return free < floorBytes ? `no space left on the file system of ${dir} (${free} bytes free)` : undefined
}
