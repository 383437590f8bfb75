/**
 * @module The console's frame: the header with its navigation, the queue of pending approvals,
 * the switches of its alerts, the `?` help and who the token is, the token dialog, the page of the route.
 */
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks'
import { AlertToggles } from './alert-toggles.js'
import { onUnauthorized, storeToken } from './api.js'
import { useAlertSettings, useApprovalAlerts } from './approval-alerts.js'
import { QueueButton, QueueModal } from './approval-queue.js'
import { CallerContext, fetchCaller, holds, type Caller } from './caller.js'
import { KeyHelp, useHelpKey } from './key-help.js'
import { usePendingQueue } from './pending.js'
import { QueueContext } from './queue-context.js'
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

function NavLink({ href, testId, current, shown, children }: { readonly href: string; readonly testId: string; readonly current: boolean; readonly shown: boolean; readonly children: string }) {
  if (!shown) return null
  return (
    <a href={href} data-testid={testId} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  )
}

/** The token's name and role; a key or an identity provider's token given a list of scopes shows how many it holds instead. */
function CallerBadge({ caller, onChange }: { readonly caller: Caller; readonly onChange: () => void }) {
  const role = caller.role ?? (caller.kind === 'key' || caller.kind === 'token' ? `${caller.scopes.length} scopes` : undefined)
  return (
    <span class="caller" data-testid="caller" data-caller-id={caller.id} title={`Scopes: ${caller.scopes.join(', ')}`}>
      <span data-testid="caller-name">{caller.name}</span>
      {role === undefined ? null : (
        <span class="role" data-testid="caller-role">
          {role}
        </span>
      )}
      {caller.kind === 'local' ? null : (
        <button type="button" class="secondary" data-testid="change-token" onClick={onChange}>
          Change token
        </button>
      )}
    </span>
  )
}

export function App() {
  const route = useRoute()
  const [auth, setAuth] = useState<Auth>('checking')
  const [caller, setCaller] = useState<Caller | undefined>(undefined)
  useEffect(() => {
    const stop = onUnauthorized(() => setAuth('needed'))
    void fetchCaller().then((reply) => {
      setCaller(reply.body)
      setAuth(reply.status === 401 ? 'needed' : 'ok')
    })
    return stop
  }, [])
  const accept = (who: Caller): void => {
    setCaller(who)
    setAuth('ok')
  }
  const changeToken = (): void => {
    storeToken(undefined)
    setCaller(undefined)
    setAuth('needed')
  }
  const pending = usePendingQueue(auth === 'ok' && holds(caller, 'sessions:read'))
  const [alerts, setAlerts] = useAlertSettings()
  useApprovalAlerts(pending, alerts)
  // undefined: closed; null: open on the oldest; a string: open on that request.
  const [queueAt, setQueueAt] = useState<string | null | undefined>(undefined)
  const [help, setHelp] = useState(false)
  const openHelp = useCallback(() => setHelp(true), [])
  useHelpKey(openHelp)
  const queue = useMemo(() => ({ requests: pending, open: (requestId?: string) => setQueueAt(requestId ?? null) }), [pending])
  return (
    <CallerContext.Provider value={caller}>
      <QueueContext.Provider value={queue}>
        <header class="top">
          <a class="brand" href="#/">
            toolexec
          </a>
          <nav aria-label="Main">
            <NavLink href="#/" testId="nav-sessions" current={route.page === 'sessions' || route.page === 'session'} shown>
              Sessions
            </NavLink>
            <NavLink href="#/rules" testId="nav-rules" current={route.page === 'rules'} shown={holds(caller, 'rules:read')}>
              Rules
            </NavLink>
            <NavLink href="#/tools" testId="nav-tools" current={route.page === 'tools'} shown={holds(caller, 'tools:read')}>
              Tools
            </NavLink>
            <NavLink href="#/servers" testId="nav-servers" current={route.page === 'servers'} shown={holds(caller, 'cluster:read')}>
              Servers
            </NavLink>
          </nav>
          <QueueButton count={pending.length} onOpen={() => setQueueAt(null)} />
          {auth === 'ok' && holds(caller, 'sessions:read') ? <AlertToggles settings={alerts} onChange={setAlerts} /> : null}
          <button type="button" class="secondary help-button" data-testid="key-help-open" aria-label="Keyboard shortcuts" aria-keyshortcuts="?" onClick={openHelp}>
            ?
          </button>
          {auth === 'ok' && caller !== undefined ? <CallerBadge caller={caller} onChange={changeToken} /> : null}
        </header>
        <main>{auth === 'ok' ? <Page route={route} /> : auth === 'checking' ? <p>Connecting…</p> : null}</main>
        {queueAt !== undefined && auth === 'ok' ? <QueueModal key={queueAt ?? ''} requests={pending} startAt={queueAt ?? undefined} onClose={() => setQueueAt(undefined)} /> : null}
        {help ? <KeyHelp onClose={() => setHelp(false)} /> : null}
        {auth === 'needed' ? <TokenDialog onAccepted={accept} /> : null}
      </QueueContext.Provider>
    </CallerContext.Provider>
  )
}
