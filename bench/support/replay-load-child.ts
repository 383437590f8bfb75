/**
 * Replay load in its own process, so the clients never share the prober's event loop:
 * `clients` SSE connections each replay a session from ?after=0 to its last id, then open
 * the next one at once, until `stop`. A replay ends when the frame of `lastId` arrives; the
 * bytes are only searched for that id, not parsed, to leave the cores to the server.
 * Protocol: the parent sends `{ start: { url, clients, lastId } }`, the child answers
 * `{ started: true }` once every client has its first bytes; `{ stop: true }` is answered
 * with `{ report: { replays, bytes } }` before the child exits.
 */
import http from 'node:http'

interface Start {
  readonly url: string
  readonly clients: number
  readonly lastId: number
}

let stopping = false
let replays = 0
let bytes = 0
const requests = new Set<http.ClientRequest>()

/** Replays once; resolves when the last id arrived (true) or the stream ended before it (false). */
function replayOnce(url: string, lastFrame: string, onFirstBytes: () => void): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    let tail = ''
    let first = true
    const request = http.get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`SSE ${url} answered ${response.statusCode}`))
        return
      }
      response.setEncoding('latin1')
      response.on('data', (chunk: string) => {
        bytes += chunk.length
        if (first) {
          first = false
          onFirstBytes()
        }
        const window = tail + chunk
        if (window.includes(lastFrame)) {
          request.destroy()
          resolve(true)
          return
        }
        tail = window.slice(-lastFrame.length)
      })
      response.on('close', () => resolve(false))
    })
    requests.add(request)
    request.on('close', () => requests.delete(request))
    request.on('error', (error) => (stopping ? resolve(false) : reject(error)))
  })
}

async function runClient(start: Start, onFirstBytes: () => void): Promise<void> {
  const lastFrame = `id: ${start.lastId}\n`
  let signalled = false
  const firstBytes = (): void => {
    if (signalled) return
    signalled = true
    onFirstBytes()
  }
  while (!stopping) {
    if (await replayOnce(start.url, lastFrame, firstBytes)) replays++
  }
}

process.on('message', (message: unknown) => {
  if (typeof message !== 'object' || message === null) return
  if ('start' in message) {
    const start = (message as { start: Start }).start
    let waiting = start.clients
    const onFirstBytes = (): void => {
      if (--waiting === 0) process.send?.({ started: true })
    }
    for (let i = 0; i < start.clients; i++) {
      runClient(start, onFirstBytes).catch((error: unknown) => {
        console.error(error)
        process.exit(1)
      })
    }
  }
  if ('stop' in message) {
    stopping = true
    for (const request of requests) request.destroy()
    process.send?.({ report: { replays, bytes } }, () => process.exit(0))
  }
})
process.once('disconnect', () => process.exit(0))
