/**
 * @module Tokens of an identity provider (TOOLEXEC_JWT_ISSUER): a JWT is accepted when an
 * asymmetric signature of the provider's keys verifies, and its issuer, its audience (this
 * server), its expiry and its not-before hold, within a small clock tolerance. Anything else
 * is refused with a reason that names the check, never the token or a claim's value.
 */
import { errors, jwtVerify, type JWTVerifyGetKey } from 'jose'
import type { Principal } from '../contracts/access.js'
import { principalOfClaims, TokenRefused } from './token-claims.js'

/** Only asymmetric signatures: the server holds no secret that could also mint tokens, and `none` or HMAC with a public key as secret cannot pass. */
export const TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const

/** How far the provider's clock and this server's may disagree on exp and nbf. */
export const CLOCK_TOLERANCE_SECONDS = 30

/** Three base64url parts, the last empty for an unsigned token (refused, but as a token). */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/

/** Whether a bearer is meant as a JWT: API keys (`txk_...`) never have this shape. */
export const looksLikeJwt = (bearer: string): boolean => JWT_SHAPE.test(bearer)

/** The provider's keys could not be fetched: no fault of the token, and passing once the provider answers. */
export class TokenKeysUnavailable extends Error {
  override readonly name = 'TokenKeysUnavailable'
}

export interface TokenAudience {
  readonly issuer: string
  readonly audience: string
}

export class TokenVerifier {
  readonly issuer: string
  readonly audience: string
  readonly #keys: JWTVerifyGetKey

  constructor(settings: TokenAudience, keys: JWTVerifyGetKey) {
    this.issuer = settings.issuer
    this.audience = settings.audience
    this.#keys = keys
  }

  /** @throws TokenRefused naming the check the token fails; TokenKeysUnavailable when the provider's keys cannot be fetched */
  async principalOf(token: string): Promise<Principal> {
    let claims
    try {
      const options = { issuer: this.issuer, audience: this.audience, algorithms: [...TOKEN_ALGORITHMS], clockTolerance: CLOCK_TOLERANCE_SECONDS, requiredClaims: ['exp', 'sub'] }
      claims = (await jwtVerify(token, this.#keys, options)).payload
    } catch (error) {
      const unavailable = unavailableReasonOf(error)
      if (unavailable !== undefined) throw new TokenKeysUnavailable(unavailable, { cause: error })
      throw new TokenRefused(reasonOf(error), { cause: error })
    }
    return principalOfClaims(claims)
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired'
  if (error instanceof errors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted (${error.reason})`
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'the token is not signed with an asymmetric algorithm this server accepts'
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return "the token's signature does not verify with the identity provider's keys"
  }
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return 'the token is malformed'
  return 'the token could not be verified'
}

/** Why the provider's JWK Set could not be had; undefined for a failure of the token itself. */
function unavailableReasonOf(error: unknown): string | undefined {
  if (error instanceof errors.JWKSTimeout) return 'it did not answer in time'
  if (error instanceof errors.JWKSInvalid || (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')) return 'it answered with no JWK Set'
  // jose's own errors are the token's; anything else comes from fetching the keys (a refused connection, a name that does not resolve).
  return error instanceof errors.JOSEError ? undefined : 'it could not be reached'
}
