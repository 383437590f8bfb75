/**
 * @module Finds a literal in raw bytes: jumps between occurrences of its rarest byte with
 * memchr (Buffer.indexOf of one byte) and compares there, the rare-byte heuristic of GNU
 * grep and ripgrep; when that byte turns out common in this text, the general substring
 * search takes over.
 */

export interface LiteralSearch {
  /** Index of the first occurrence at or after `from`, or -1. */
  find(bytes: Buffer, from: number): number
}

// Roughly how common a byte is in source code and prose, most common first.
const COMMON = ' e\nta\toinsrlhdcu()m.,;=_p"fg/:-\'y{}bw[]v0k1x2>3<jq*z54698'
// More false hits than this in one search and the plain substring search is faster.
const MAX_FALSE_HITS = 32

function commonness(byte: number): number {
  const index = COMMON.indexOf(String.fromCharCode(byte))
  return index === -1 ? 0 : COMMON.length - index
}

function rarestIndex(literal: Buffer): number {
  let best = 0
  for (let index = 1; index < literal.length; index++) {
    if (commonness(literal[index] as number) < commonness(literal[best] as number)) best = index
  }
  return best
}

function matchesAt(bytes: Buffer, literal: Buffer, start: number): boolean {
  for (let index = 0; index < literal.length; index++) {
    if (bytes[start + index] !== literal[index]) return false
  }
  return true
}

export function createLiteralSearch(literal: Buffer): LiteralSearch {
  const offset = rarestIndex(literal)
  const rare = literal[offset] as number
  return {
    find: function findLiteral(bytes: Buffer, from: number): number {
      const last = bytes.length - literal.length
      let falseHits = 0
      for (let hit = bytes.indexOf(rare, from + offset); hit !== -1; hit = bytes.indexOf(rare, hit + 1)) {
        const start = hit - offset
        if (start > last) return -1
        if (matchesAt(bytes, literal, start)) return start
        if (++falseHits > MAX_FALSE_HITS) return bytes.indexOf(literal, start + 1)
      }
      return -1
    },
  }
}
