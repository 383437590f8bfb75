/** @module Hash routes: `#/` sessions, `#/sessions/<id>`, `#/rules`, `#/tools`, `#/servers`. */
import { useEffect, useState } from 'preact/hooks'

export type Route = { readonly page: 'sessions' } | { readonly page: 'session'; readonly id: string } | { readonly page: 'rules' } | { readonly page: 'tools' } | { readonly page: 'servers' }

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '')
  const session = /^\/sessions\/(.+)$/.exec(path)
  if (session?.[1] !== undefined) return { page: 'session', id: decodeURIComponent(session[1]) }
  if (path === '/rules') return { page: 'rules' }
  if (path === '/tools') return { page: 'tools' }
  if (path === '/servers') return { page: 'servers' }
  return { page: 'sessions' }
}

export const sessionHref = (id: string): string => `#/sessions/${encodeURIComponent(id)}`

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const update = (): void => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', update)
    return () => removeEventListener('hashchange', update)
  }, [])
  return route
}
