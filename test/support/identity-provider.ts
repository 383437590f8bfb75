/** A local identity provider for the tests: its JWK Set served by a listening node:http server on 127.0.0.1, and tokens it signs. */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose'

export interface IdentityProvider {
  /** Its issuer URL, which is also where it listens. */
  readonly issuer: string
  readonly jwksUrl: string
  readonly publicJwk: JWK
  readonly publicKey: CryptoKey
  /** How many times its JWK Set was fetched. */
  readonly fetches: () => number
  /** A token of `claims`, with iss, iat and an exp one hour ahead unless given; signed with its key unless another is given. */
  sign(claims: JWTPayload, options?: { key?: CryptoKey; alg?: string; kid?: string }): Promise<string>
  close(): Promise<void>
}

export const PROVIDER_ALG = 'ES256'
export const PROVIDER_KID = 'test-key-1'

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const { publicKey, privateKey } = await generateKeyPair(PROVIDER_ALG)
  const publicJwk = { ...(await exportJWK(publicKey)), kid: PROVIDER_KID, alg: PROVIDER_ALG, use: 'sig' }
  let fetches = 0
  const server = http.createServer((request, response) => {
    if (request.url !== '/jwks.json') return response.writeHead(404).end()
    fetches += 1
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    issuer,
    jwksUrl: `${issuer}/jwks.json`,
    publicJwk,
    publicKey,
    fetches: () => fetches,
    sign: (claims, options = {}) => {
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({ iss: issuer, iat: now, exp: now + 3600, ...claims })
        .setProtectedHeader({ alg: options.alg ?? PROVIDER_ALG, kid: options.kid ?? PROVIDER_KID, typ: 'at+jwt' })
        .sign(options.key ?? privateKey)
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
