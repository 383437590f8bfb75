/**
 * `npm run bench:replay`: 100,000 events stored in one session (through the real journal
 * and store), replayed by the real server to one SSE client with ?after=0, beside a bare
 * node http server writing the same frames in writes of the same page size. The client
 * parses every frame's id to check count and order; the clock runs from the request to the
 * last event. Rounds alternate between the two; the medians are printed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { benchStreamLimits, childScript, startChild, type ChildTarget } from './support/child-process.js'
import { writeSessionEvents } from './support/replay-events.js'
import { openSse } from './support/sse-reader.js'
import { formatRate, median, perSecond } from './support/stats.js'

const EVENTS = 100_000
const WRITE_BATCH = 1_000
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SESSION = 'replay_session'
const PROFILE_DIR = process.env.BENCH_PROFILE

interface Round {
  readonly ms: number
  readonly bytes: number
}

/** One client reads every event after 0; resolves when the last one arrived in order. */
function replayOnce(url: string): Promise<Round> {
  return new Promise<Round>((resolve, reject) => {
    let expected = 1
    const started = performance.now()
    const stream = openSse(url, (id) => {
      if (id !== expected) {
        stream.close()
        reject(new Error(`event id ${id} where ${expected} was expected`))
        return
      }
      if (expected++ === EVENTS) {
        const ms = performance.now() - started
        const bytes = stream.bytes()
        stream.close()
        resolve({ ms, bytes })
      }
    })
    stream.opened.catch(reject)
    void stream.ended.then(() => {
      if (expected <= EVENTS) reject(new Error(`stream ended after ${expected - 1} of ${EVENTS} events`))
    })
  })
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'toolexec-bench-replay-'))
  const children: ChildTarget[] = []
  try {
    const writeStarted = performance.now()
    const stored = await writeSessionEvents(dataDir, SESSION, EVENTS, WRITE_BATCH)
    const writeMs = performance.now() - writeStarted
    if (stored !== EVENTS) throw new Error(`stored ${stored} events, wanted ${EVENTS}`)
    const ours = await startChild(childScript('toolexec-child.ts'), { args: [dataDir], cpuProfileDir: PROFILE_DIR })
    children.push(ours)
    const bare = await startChild(childScript('bare-sse-child.ts'), { args: [dataDir, SESSION] })
    children.push(bare)
    const oursUrl = `${ours.url}/sessions/${SESSION}/events?after=0`
    const bareUrl = `${bare.url}/events`
    await replayOnce(oursUrl)
    await replayOnce(bareUrl)
    const oursRounds: Round[] = []
    const bareRounds: Round[] = []
    for (let round = 0; round < ROUNDS; round++) {
      oursRounds.push(await replayOnce(oursUrl))
      bareRounds.push(await replayOnce(bareUrl))
    }
    const oursRate = perSecond(EVENTS, median(oursRounds.map((r) => r.ms)))
    const bareRate = perSecond(EVENTS, median(bareRounds.map((r) => r.ms)))
    const oursBytes = oursRounds[0]?.bytes ?? 0
    const bareBytes = bareRounds[0]?.bytes ?? 0
    console.log(`machine: ${os.cpus().length} cores, node ${process.version}; ${EVENTS.toLocaleString('en')} events, page ${benchStreamLimits().replayPage}, median of ${ROUNDS} alternating rounds`)
    console.log(`stored through the journal:   ${formatRate(perSecond(EVENTS, writeMs))} events/s (batches of ${WRITE_BATCH})`)
    console.log(`toolexec SSE replay ?after=0: ${formatRate(oursRate)} events/s (${(oursBytes / EVENTS).toFixed(0)} B/frame, ${(oursBytes / 1e6).toFixed(1)} MB)`)
    console.log(
      `bare node http write loop:    ${formatRate(bareRate)} events/s (${(bareBytes / 1e6).toFixed(1)} MB${bareBytes === oursBytes ? ', same bytes' : `, ${bareBytes - oursBytes} B different`})`,
    )
    console.log(`ratio toolexec/bare:          ${(oursRate / bareRate).toFixed(3)}`)
    console.log(`target >= 150,000 events/s:   ${oursRate >= 150_000 ? 'PASS' : 'MISS'}`)
  } finally {
    for (const child of children) await child.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
