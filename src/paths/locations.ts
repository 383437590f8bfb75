/**
 * @module Where a path really is and whether it lies inside another: one definition for the
 * permission rules and the tools, which must agree on it.
 */
import { realpath } from 'node:fs/promises'
import path from 'node:path'

/** True when `target` is `root` or lies below it (both absolute and normalized). */
export function isWithin(root: string, target: string): boolean {
  if (target === root) return true
  return target.startsWith(root.endsWith(path.sep) ? root : root + path.sep)
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/**
 * Where `absolute` really is: its realpath, or for a path that does not exist yet, the
 * realpath of its deepest existing ancestor with the missing names appended.
 */
export async function realLocation(absolute: string): Promise<string> {
  const missing: string[] = []
  let current = absolute
  for (;;) {
    try {
      const real = await realpath(current)
      return missing.length === 0 ? real : path.join(real, ...missing.reverse())
    } catch (error) {
      if (!isMissing(error)) throw error
      const parent = path.dirname(current)
      if (parent === current) return absolute
      missing.push(path.basename(current))
      current = parent
    }
  }
}
