/**
 * @module A short-lived link (POST /sessions/{id}/links) opens the console as
 * `#/sessions/<id>?token=<token>`: the token is kept as the console's token and taken out of the
 * address at once, so that it stays in no history entry and no bookmark. The part after `#`
 * never reaches the server.
 */
import { storeToken } from './api.js'

export function adoptLinkToken(): void {
  const [route, query] = location.hash.split('?', 2)
  if (query === undefined) return
  const token = new URLSearchParams(query).get('token')
  if (token === null || token === '') return
  storeToken(token)
  history.replaceState(null, '', `${location.pathname}${location.search}${route ?? ''}`)
}
