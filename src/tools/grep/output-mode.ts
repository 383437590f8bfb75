/** @module What a Grep prints: the matching lines, the names of matching files, or counts per file. */
export type OutputMode = 'content' | 'files_with_matches' | 'count'
