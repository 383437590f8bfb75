/** @module The PostgreSQL backend as the runtime takes it (not in this build yet). */
import type { Logger } from 'pino'
import type { OpenedStore } from '../../contracts/store.js'

export function openPostgresStore(url: string, options: { readonly logger: Logger }): OpenedStore {
  void options
  throw new Error(`PostgreSQL storage is not available in this build (TOOLEXEC_DATABASE_URL=${redactedUrl(url)})`)
}

/** The URL with its password replaced by `***`, for logs and errors. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(not a URL)'
  }
}
