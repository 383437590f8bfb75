/**
 * A hostile web page, served by a local HTTP server of its own (another origin than the API's):
 * loaded with `?api=<server url>&session=<id>`, its script tries every way a page has to make
 * the browser POST to `/sessions/<id>/abort` without a preflight, the attack run's no-cors
 * fetch first. `window.attack` resolves once each fetch has settled and each form's reply loaded.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** Each vector, in the order the page sends them; with `?bodies=only` the page sends only those with a body. */
export const ATTACKS: readonly { readonly name: string; readonly body: boolean }[] = [
  { name: "fetch no-cors, body '{}' (text/plain)", body: true },
  { name: 'fetch no-cors, no body', body: false },
  { name: "sendBeacon, body '{}' (text/plain)", body: true },
  { name: 'form, enctype text/plain', body: true },
  { name: 'form, urlencoded', body: true },
]

// Plain script: it runs as the page's own code.
const PAGE_SCRIPT = `
const query = new URLSearchParams(location.search)
const target = query.get('api') + '/sessions/' + encodeURIComponent(query.get('session')) + '/abort'
const settle = (promise) => promise.then(() => 'sent', (error) => String(error))
function submitForm(enctype, name) {
  const frame = document.createElement('iframe')
  frame.name = name
  document.body.append(frame)
  const form = document.createElement('form')
  Object.assign(form, { method: 'POST', action: target, target: name, enctype })
  const field = document.createElement('input')
  Object.assign(field, { type: 'hidden', name: '{"x":"', value: '"}' })
  form.append(field)
  document.body.append(form)
  return new Promise((resolve) => {
    frame.addEventListener('load', () => resolve('sent'), { once: true })
    form.submit()
  })
}
const bodiesOnly = query.get('bodies') === 'only'
window.attack = (async () => [
  await settle(fetch(target, { method: 'POST', mode: 'no-cors', body: '{}' })),
  bodiesOnly ? 'skipped' : await settle(fetch(target, { method: 'POST', mode: 'no-cors' })),
  navigator.sendBeacon(target, '{}') ? 'queued' : 'refused',
  await submitForm('text/plain', 'sink-text'),
  await submitForm('application/x-www-form-urlencoded', 'sink-form'),
])()
`

const PAGE = [
  '<!doctype html>',
  // No favicon request: a 404 for it would be a failed request of its own.
  '<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>a page elsewhere</title></head>',
  `<body><script>${PAGE_SCRIPT}</script></body></html>`,
].join('\n')

export interface AttackerServer {
  /** The port it listens on, at 127.0.0.1 (a browser may reach it under another name). */
  readonly port: number
  close(): Promise<void>
}

export async function startAttackerServer(): Promise<AttackerServer> {
  const server = http.createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://page').pathname !== '/') {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
