/** @module How long the server waits for a request to arrive; the config's default, read by the app. */

/** Time enough for a 10 MiB body on a slow link; a client dripping one byte at a time holds nothing longer. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
