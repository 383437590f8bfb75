/**
 * @module The identity provider's public keys: its JWK Set at a URL (fetched and cached by
 * jose, fetched again when a token names a key it does not hold), or a file holding a PEM
 * public key, a JWK or a JWK Set. A file with a private or a symmetric key is refused at
 * start: the server only verifies, and a shared secret would let it (or whoever reads the
 * file) mint tokens.
 */
import { createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose'
import { StartupError } from '../contracts/errors.js'

/** How the server checks tokens of an identity provider (TOOLEXEC_JWT_*); exactly one of jwksUrl and keyFile. */
export interface IdentityProviderSettings {
  readonly issuer: string
  readonly audience: string
  readonly jwksUrl: string | undefined
  readonly keyFile: string | undefined
}

const PUBLIC_KEY_TYPES: ReadonlySet<unknown> = new Set(['RSA', 'EC', 'OKP'])

export function tokenKeys(settings: IdentityProviderSettings): JWTVerifyGetKey {
  if (settings.jwksUrl !== undefined) return createRemoteJWKSet(new URL(settings.jwksUrl))
  if (settings.keyFile === undefined) throw new Error('identity provider settings name neither a JWKS URL nor a key file')
  return keysOfFile(settings.keyFile)
}

function keysOfFile(file: string): JWTVerifyGetKey {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw refused(file, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
  }
  return text.trimStart().startsWith('{') ? jwkSetOf(file, text) : pemKeyOf(file, text)
}

function pemKeyOf(file: string, text: string): JWTVerifyGetKey {
  if (text.includes('PRIVATE KEY')) throw refused(file, 'it holds a private key; give the public key only')
  try {
    const key = createPublicKey(text)
    return () => key
  } catch {
    throw refused(file, 'it holds no PEM public key')
  }
}

function jwkSetOf(file: string, text: string): JWTVerifyGetKey {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw refused(file, 'it is not JSON')
  }
  const keys: unknown[] = isObject(parsed) && Array.isArray(parsed.keys) ? parsed.keys : [parsed]
  if (keys.length === 0) throw refused(file, 'its JWK Set holds no key')
  for (const key of keys) {
    if (!isObject(key) || !PUBLIC_KEY_TYPES.has(key.kty)) throw refused(file, 'it holds a key that is not an RSA, EC or OKP public key')
    if ('d' in key) throw refused(file, 'it holds a private key; give the public key only')
  }
  return createLocalJWKSet({ keys: keys as JWK[] } satisfies JSONWebKeySet)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function refused(file: string, reason: string): StartupError {
  return new StartupError('CONF_ERR_JWT_KEY_FILE', [file, reason])
}
