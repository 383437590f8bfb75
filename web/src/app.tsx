/** @module The console's frame: the header with its navigation and pending badge, the token dialog, the page of the route. */
import { useEffect, useState } from 'preact/hooks'
import { onUnauthorized, request } from './api.js'
import { usePendingCount } from './pending.js'
import { useRoute, type Route } from './route.js'
import { RulesPage } from './rules-page.js'
import { ServersPage } from './servers-page.js'
import { SessionView } from './session-view.js'
import { SessionsPage } from './sessions-page.js'
import { TokenDialog } from './token-dialog.js'
import { ToolsPage } from './tools-page.js'

type Auth = 'checking' | 'needed' | 'ok'

function Page({ route }: { readonly route: Route }) {
  switch (route.page) {
    case 'session':
      return <SessionView key={route.id} sessionId={route.id} />
    case 'rules':
      return <RulesPage />
    case 'tools':
      return <ToolsPage />
    case 'servers':
      return <ServersPage />
    case 'sessions':
      return <SessionsPage />
  }
}

function NavLink({ href, testId, current, children }: { readonly href: string; readonly testId: string; readonly current: boolean; readonly children: string }) {
  return (
    <a href={href} data-testid={testId} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  )
}

export function App() {
  const route = useRoute()
  const [auth, setAuth] = useState<Auth>('checking')
  useEffect(() => {
    const stop = onUnauthorized(() => setAuth('needed'))
    void request('GET', '/sessions?limit=1').then((reply) => setAuth(reply.status === 401 ? 'needed' : 'ok'))
    return stop
  }, [])
  const pending = usePendingCount(auth === 'ok')
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">
          toolexec
        </a>
        <nav aria-label="Main">
          <NavLink href="#/" testId="nav-sessions" current={route.page === 'sessions' || route.page === 'session'}>
            Sessions
          </NavLink>
          <NavLink href="#/rules" testId="nav-rules" current={route.page === 'rules'}>
            Rules
          </NavLink>
          <NavLink href="#/tools" testId="nav-tools" current={route.page === 'tools'}>
            Tools
          </NavLink>
          <NavLink href="#/servers" testId="nav-servers" current={route.page === 'servers'}>
            Servers
          </NavLink>
        </nav>
        <span class="badge" data-testid="pending-badge" hidden={pending === 0} title="Pending approvals across sessions" aria-label={`${pending} pending approvals`}>
          {pending}
        </span>
      </header>
      <main>{auth === 'ok' ? <Page route={route} /> : auth === 'checking' ? <p>Connecting…</p> : null}</main>
      {auth === 'needed' ? <TokenDialog onAccepted={() => setAuth('ok')} /> : null}
    </>
  )
}
