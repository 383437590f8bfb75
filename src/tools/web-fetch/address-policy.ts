/**
 * @module Which network addresses WebFetch may connect to. Private, loopback, link-local,
 * unspecified, multicast and reserved addresses are refused unless the host allows the
 * private network. The check runs on the address a name resolved to, inside the socket's
 * own DNS lookup, so a name that resolves differently the second time (DNS rebinding)
 * cannot slip past a check made earlier.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns'
import { BlockList, isIP } from 'node:net'

const BLOCKED_IPV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 included
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT; some clouds put their metadata service here
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast included
]

const BLOCKED_IPV6: readonly (readonly [string, number])[] = [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
]

function buildBlockList(): BlockList {
  const list = new BlockList()
  for (const [network, prefix] of BLOCKED_IPV4) list.addSubnet(network, prefix, 'ipv4')
  for (const [network, prefix] of BLOCKED_IPV6) list.addSubnet(network, prefix, 'ipv6')
  return list
}

// Built once; BlockList matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against the IPv4 rules.
const BLOCKED = buildBlockList()

/** An address WebFetch refused to connect to; the handler turns it into a tool_use_error. */
export class BlockedAddressError extends Error {
  readonly code = 'TOOL_ERR_WEBFETCH_BLOCKED_ADDRESS'
  readonly host: string
  readonly address: string

  constructor(host: string, address: string) {
    const target = host === address ? address : `${host} (${address})`
    super(`Refused to connect to ${target}: private, loopback and link-local addresses are not allowed`)
    this.name = 'BlockedAddressError'
    this.host = host
    this.address = address
  }
}

/** The 8 groups of an IPv6 address, or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined
  const [head = '', tail] = address.split('::')
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').flatMap(groupsOfPart))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  const zeros = new Array<number>(8 - left.length - right.length).fill(0)
  return [...left, ...zeros, ...right]
}

/** A dotted IPv4 tail (::ffff:1.2.3.4) counts as two groups. */
function groupsOfPart(part: string): number[] {
  if (!part.includes('.')) return [Number.parseInt(part, 16)]
  const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number)
  return [(a << 8) | b, (c << 8) | d]
}

function dotted(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
}

/** IPv4 addresses carried inside IPv6 by NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address)
  if (groups === undefined) return undefined
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dotted(g6, g7)
  if (g0 === 0x2002) return dotted(g1 ?? 0, g2 ?? 0)
  return undefined
}

/** True for the addresses WebFetch refuses without allowPrivateNetwork; non-IPs are not blocked here. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address
  const family = isIP(bare)
  if (family === 4) return BLOCKED.check(bare, 'ipv4')
  if (family !== 6) return false
  if (BLOCKED.check(bare, 'ipv6')) return true
  const inner = embeddedIpv4(bare)
  return inner !== undefined && BLOCKED.check(inner, 'ipv4')
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for net/tls (undici's `connect.lookup`) that resolves as usual and keeps only
 * allowed addresses; with none left the connection fails with a BlockedAddressError.
 */
export function guardedLookup(hostname: string, options: LookupOptions | number, callback: LookupCallback): void {
  const wanted: LookupOptions = typeof options === 'number' ? { family: options } : options
  const all: LookupAllOptions = { ...wanted, all: true }
  dnsLookup(hostname, all, (error, addresses) => {
    if (error !== null) return callback(error, [])
    const allowed = addresses.filter((entry) => !isBlockedAddress(entry.address))
    const first = allowed[0]
    if (first === undefined) return callback(new BlockedAddressError(hostname, addresses[0]?.address ?? hostname), [])
    if (wanted.all === true) return callback(null, allowed)
    return callback(null, first.address, first.family)
  })
}
