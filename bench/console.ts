/**
 * `npm run bench:console`: the web console on a big session, in Debian's Chromium (headless,
 * through playwright-core, as the browser tests run it). The real server runs in a child process
 * (bench/support/toolexec-child.ts: SQLite in a temporary data dir, no token) and one session is
 * filled through the HTTP API with 5,000 calls of the no-op tool (50 schedules of 100 calls: a
 * few seconds, and every row is what the server itself stored and streams).
 * (1) Open: from the start of the navigation to `#/sessions/<id>` until the session's timeline is
 * rendered, i.e. the page's ready marker says it applied every event of the session (its
 * session view's `data-last-seq` is the session's last event id) and the rows at the top of the
 * viewport are drawn (the first call's row is in the DOM as `succeeded`), as a MutationObserver
 * in the page sees it (performance.now(), whose origin is the navigation's start); beside it the
 * next animation frame, the one that paints it. The console draws the calls of a big session's
 * schedules only near the viewport, so the last call's row is not the mark. Each run is a fresh
 * load of the page; min, median and max of BENCH_CONSOLE_RUNS (default 5). Target: under 1 s.
 * (2) Stream: with the page open and scrolled to its end (where the new schedules are drawn),
 * schedules of one no-op call are posted at a steady rate so that ~100 events/s reach it (the
 * rate from a calibration schedule's event count) for BENCH_CONSOLE_STREAM_SECONDS (default 10);
 * the page records every requestAnimationFrame delta and the long tasks (PerformanceObserver
 * 'longtask'). p50/p99/max frame time and the frames over 50 ms are printed. Target: no frame
 * over 50 ms. The whole run takes about 40 s.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { childScript, startChild, type ChildTarget } from './support/child-process.js'
import { NOOP_TOOL_NAME } from './support/noop-tool.js'
import { median, percentile } from './support/stats.js'
import { launchChromium } from '../test/support/chromium.js'

const CALLS = 5_000
const CALLS_PER_SCHEDULE = 100
const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 5)
const STREAM_MS = Number(process.env.BENCH_CONSOLE_STREAM_SECONDS ?? 10) * 1000
const EVENTS_PER_SECOND = 100
const OPEN_TARGET_MS = 1_000
const FRAME_TARGET_MS = 50
const SESSION = 'bench-console'

async function api<T>(server: ChildTarget, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${text}`)
  return JSON.parse(text) as T
}

/** Posts one schedule of `count` no-op calls; with `wait`, returns once it ended. */
async function schedule(server: ChildTarget, prefix: string, count: number, wait: boolean): Promise<void> {
  const calls = Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, name: NOOP_TOOL_NAME, input: { n: i } }))
  const accepted = await api<{ scheduleId: string }>(server, 'POST', '/schedules', { sessionId: SESSION, createSession: {}, calls })
  if (wait) await api(server, 'GET', `/schedules/${encodeURIComponent(accepted.scheduleId)}?wait=30`)
}

const lastEventId = async (server: ChildTarget): Promise<number> => (await api<{ lastEventId: number }>(server, 'GET', `/sessions/${SESSION}`)).lastEventId

/** The session's 5,000 calls; the id of the first one. */
async function fill(server: ChildTarget): Promise<string> {
  const schedules = CALLS / CALLS_PER_SCHEDULE
  for (let s = 0; s < schedules; s++) await schedule(server, `fill${s}`, CALLS_PER_SCHEDULE, true)
  return 'fill0-0'
}

/** Set before the page's own scripts: the time every one of `selectors` first is in the DOM, and the frame after. */
const OPEN_PROBE = (selectors: readonly string[]): string => `
window.__opened = new Promise((resolve) => {
  const found = () => ${JSON.stringify(selectors)}.every((selector) => document.querySelector(selector) !== null)
  const observer = new MutationObserver(() => {
    if (!found()) return
    observer.disconnect()
    const inDom = performance.now()
    requestAnimationFrame(() => resolve({ inDom, frame: performance.now() }))
  })
  observer.observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-status', 'data-last-seq'] })
})
`

interface Opened {
  readonly inDom: number
  readonly frame: number
}

async function openOnce(page: Page, url: string): Promise<Opened> {
  await page.goto('about:blank')
  await page.goto(url)
  return await page.evaluate<Opened>('window.__opened')
}

const FRAME_RECORDER = `
window.__frames = { deltas: [], longTasks: [], running: true }
new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__frames.longTasks.push(entry.duration) }).observe({ type: 'longtask' })
let last = performance.now()
const tick = (now) => {
  window.__frames.deltas.push(now - last)
  last = now
  if (window.__frames.running) requestAnimationFrame(tick)
}
requestAnimationFrame(tick)
`

interface Frames {
  readonly deltas: number[]
  readonly longTasks: number[]
}

/** Posts schedules of one call at a steady rate for STREAM_MS; the events the session got meanwhile. */
async function stream(server: ChildTarget, eventsPerSchedule: number): Promise<{ events: number; ms: number }> {
  const intervalMs = (1000 * eventsPerSchedule) / EVENTS_PER_SECOND
  const before = await lastEventId(server)
  const started = performance.now()
  const posted: Promise<void>[] = []
  for (let i = 0; performance.now() - started < STREAM_MS; i++) {
    posted.push(schedule(server, `live${i}`, 1, false))
    const next = started + (i + 1) * intervalMs
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())))
  }
  await Promise.all(posted)
  const ms = performance.now() - started
  return { events: (await lastEventId(server)) - before, ms }
}

const fmt = (ms: number): string => `${ms.toFixed(0).padStart(5)} ms`
const verdict = (met: boolean): string => (met ? 'PASS' : 'MISS')

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-console-'))
const server = await startChild(childScript('toolexec-child.ts'), { args: [dataDir] })
const browser = await launchChromium()
try {
  const filling = performance.now()
  const firstCall = await fill(server)
  const events = await lastEventId(server)
  console.log(
    `filled session ${SESSION}: ${CALLS.toLocaleString('en')} calls, ${events.toLocaleString('en')} events, in ${fmt(performance.now() - filling)} (HTTP, ${CALLS / CALLS_PER_SCHEDULE} schedules)`,
  )

  const page = browser.page
  await page.setViewportSize({ width: 1280, height: 800 })
  await page.addInitScript(OPEN_PROBE([`[data-testid="session-view"][data-last-seq="${events}"]`, `[data-call-id="${firstCall}"][data-status="succeeded"]`]))
  const url = `${server.url}/#/sessions/${SESSION}`
  await openOnce(page, url) // untimed: the browser's caches as a second visit finds them
  const opens: Opened[] = []
  for (let run = 0; run < RUNS; run++) opens.push(await openOnce(page, url))
  const inDom = opens.map((open) => open.inDom).sort((a, b) => a - b)
  const painted = opens.map((open) => open.frame).sort((a, b) => a - b)
  console.log(`load average ${os.loadavg()[0]?.toFixed(2)} on ${os.availableParallelism()} cores, ${RUNS} runs`)
  console.log(
    `open, timeline rendered        min ${fmt(inDom[0] ?? NaN)}  median ${fmt(median(inDom))}  max ${fmt(inDom.at(-1) ?? NaN)}  target < ${OPEN_TARGET_MS} ms ${verdict(median(inDom) < OPEN_TARGET_MS)}`,
  )
  console.log(`open, its frame painted        min ${fmt(painted[0] ?? NaN)}  median ${fmt(median(painted))}  max ${fmt(painted.at(-1) ?? NaN)}`)

  const before = await lastEventId(server)
  await schedule(server, 'calibrate', 1, true)
  const eventsPerSchedule = (await lastEventId(server)) - before
  // Where a person watching the session looks: its end, where the new schedules are drawn.
  await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)')
  await page.evaluate(FRAME_RECORDER)
  const streamed = await stream(server, eventsPerSchedule)
  await new Promise((resolve) => setTimeout(resolve, 500))
  const frames = await page.evaluate<Frames>('window.__frames.running = false, window.__frames')
  const deltas = frames.deltas.slice(1).sort((a, b) => a - b)
  const over = deltas.filter((ms) => ms > FRAME_TARGET_MS).length
  console.log(
    `load average ${os.loadavg()[0]?.toFixed(2)}; streamed ${streamed.events} events in ${fmt(streamed.ms)} (${((streamed.events / streamed.ms) * 1000).toFixed(0)}/s, schedules of 1 call, ${eventsPerSchedule} events each)`,
  )
  console.log(
    `frame time while streaming      p50 ${fmt(percentile(deltas, 50))}  p99 ${fmt(percentile(deltas, 99))}  max ${fmt(deltas.at(-1) ?? NaN)}  ${over} of ${deltas.length} frames over ${FRAME_TARGET_MS} ms  target 0 ${verdict(over === 0)}`,
  )
  const longTasks = [...frames.longTasks].sort((a, b) => a - b)
  console.log(`long tasks (> 50 ms)            ${longTasks.length}${longTasks.length === 0 ? '' : `, max ${fmt(longTasks.at(-1) ?? NaN)}, median ${fmt(median(longTasks))}`}`)
  // Each new navigation aborts the last page's stream and polls: not a problem of the console.
  const problems = browser.problems.filter((problem) => !problem.includes('net::ERR_ABORTED'))
  if (problems.length > 0) console.log(`browser problems: ${problems.join('; ')}`)
} finally {
  await browser.close()
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
