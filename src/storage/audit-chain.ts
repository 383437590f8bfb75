/**
 * @module The audit log's chain: an entry's canonical text and hash, which the database
 * computes as it appends (migration 016 on PostgreSQL, the sha256 function SQLite is given),
 * and the walk `toolexec audit verify` makes over the stored entries.
 */
import { createHash } from 'node:crypto'
import type { NewAuditEntry } from '../contracts/audit.js'
import type { AuditReads, AuditRecord } from '../contracts/store.js'

/** The prev_hash of the first entry. */
export const GENESIS_HASH = '0'.repeat(64)

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')

/**
 * The entry's fields but its seq and hashes as one JSON array, its detail as the JSON text
 * stored: the same text whether written from the new entry or read back from its columns.
 */
export function auditBody(at: string, kind: string, actorId: string, actorName: string, sessionId: string | null, detailJson: string): string {
  return `[${[at, kind, actorId, actorName, sessionId].map((value) => JSON.stringify(value)).join(',')},${detailJson}]`
}

export function newEntryBody(entry: NewAuditEntry, detailJson: string): string {
  return auditBody(entry.at, entry.kind, entry.actor.id, entry.actor.name, entry.sessionId, detailJson)
}

/** sha256 hex of the previous hash, a newline, and the entry's canonical text: its seq, a newline, its body. */
export function entryHash(prevHash: string, seq: number, body: string): string {
  return sha256Hex(`${prevHash}\n${seq}\n${body}`)
}

export interface ChainReport {
  readonly ok: boolean
  readonly count: number
  /** The hash of the last entry read (GENESIS_HASH for an empty log): keep it to tell a truncated tail later. */
  readonly head: string
  readonly headSeq: number
  /** The first entry found wrong, and how. */
  readonly broken?: { readonly seq: number; readonly reason: string }
}

/** Walks the entries in seq order and stops at the first whose seq, link or hash is wrong. */
export async function verifyChain(entries: AsyncIterable<AuditRecord>): Promise<ChainReport> {
  let head = GENESIS_HASH
  let headSeq = 0
  let count = 0
  for await (const entry of entries) {
    const reason = faultOf(entry, headSeq, head)
    if (reason !== undefined) return { ok: false, count, head, headSeq, broken: { seq: entry.seq, reason } }
    head = entry.hash
    headSeq = entry.seq
    count++
  }
  return { ok: true, count, head, headSeq }
}

/** Every stored entry in seq order, read a page at a time. */
export async function* allEntries(reads: AuditReads, pageSize = 1_000): AsyncGenerator<AuditRecord> {
  let after = 0
  for (;;) {
    const page = await reads.page({ after, limit: pageSize })
    yield* page
    if (page.length < pageSize) return
    after = (page.at(-1) as AuditRecord).seq
  }
}

function faultOf(entry: AuditRecord, lastSeq: number, lastHash: string): string | undefined {
  if (entry.seq !== lastSeq + 1) return `expected entry ${lastSeq + 1} next, found ${entry.seq}: entries were removed or renumbered`
  if (entry.prevHash !== lastHash) return `its prev_hash is not the hash of entry ${lastSeq}: an entry before it was removed, reordered or rewritten`
  const body = auditBody(entry.at, entry.kind, entry.actor.id, entry.actor.name, entry.sessionId, entry.detailJson)
  if (entryHash(entry.prevHash, entry.seq, body) !== entry.hash) return 'its hash does not match its content: the entry was edited'
  return undefined
}
