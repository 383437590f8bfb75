/** @module A PostgreSQL database URL: read as libpq and node-postgres read it, and shown without its secrets. */

/** The libpq parameters whose value is a secret, or leads to one. */
const SECRET_PARAMETERS = new Set(['password', 'sslpassword', 'passfile', 'sslkey'])
const MASK = '***'
/** node-postgres reads `postgres://user@/db?host=/dir` (no host before the path) with a stand-in host. */
const NO_HOST = '@/'
const STAND_IN_HOST = '@toolexec-no-host/'

/**
 * The URL as `URL`, with the libpq socket forms accepted: `postgresql:///db?host=/dir` parses as
 * it is, `postgres://user@/db?host=/dir` with a stand-in host, as node-postgres does.
 */
export function parsedDatabaseUrl(url: string): URL | undefined {
  if (URL.canParse(url)) return new URL(url)
  const withHost = url.replace(NO_HOST, STAND_IN_HOST)
  return withHost !== url && URL.canParse(withHost) ? new URL(withHost) : undefined
}

/**
 * The URL as given, with every secret it carries replaced by `***`: the password, and
 * `password=`, `sslpassword=`, `passfile=`, `sslkey=` in its query. The text is kept otherwise,
 * so a socket path reads as the operator wrote it.
 */
export function redactedDatabaseUrl(url: string): string {
  const password = parsedDatabaseUrl(url)?.password ?? ''
  const withoutPassword = password === '' ? url.replace(/(\/\/[^:/?#@]*):[^@/?#]*@/, `$1:${MASK}@`) : url.replace(`:${password}@`, `:${MASK}@`)
  return withoutPassword.replace(/([?&\s])([^=&#\s]+)=([^&#\s]*)/g, (pair: string, separator: string, name: string) => (isSecretParameter(name) ? `${separator}${name}=${MASK}` : pair))
}

function isSecretParameter(name: string): boolean {
  return SECRET_PARAMETERS.has(name.toLowerCase())
}
