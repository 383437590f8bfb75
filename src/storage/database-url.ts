/** @module A database URL as logs and errors show it. */

/** The URL with its password, if any, replaced by `***`. */
export function redactedDatabaseUrl(url: string): string {
  if (!URL.canParse(url)) return url.replace(/:[^:@/]*@/, ':***@')
  const parsed = new URL(url)
  if (parsed.password === '') return url
  parsed.password = '***'
  return parsed.toString()
}
