/** @module Small formatters shared by the views. */

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KiB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
}

/** One line saying what a call does: the command, the path or the pattern, else the input's JSON. */
export function summarizeInput(input: unknown): string {
  if (typeof input !== 'object' || input === null) return input === undefined ? '' : JSON.stringify(input)
  const fields = input as Record<string, unknown>
  for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description']) {
    const value = fields[key]
    if (typeof value === 'string') return value.length > 200 ? `${value.slice(0, 200)}…` : value
  }
  const json = JSON.stringify(input)
  return json.length > 200 ? `${json.slice(0, 200)}…` : json
}

/** How long ago, coarsely: "40 s", "3 min", "2 h 5 min", "3 d". */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`
  return `${Math.floor(hours / 24)} d`
}
