import { describe, expect, it } from 'vitest'
import { ReplayPacer, type PageOutcome, type Replayer } from '../../src/http/replay-pacer.js'

/** A replayer that records each page it runs in `log` and answers the outcomes given, then 'done'. */
function replayer(name: string, log: string[], outcomes: PageOutcome[]): Replayer {
  let page = 0
  return {
    replayPage: () => {
      log.push(`${name}${page}`)
      return outcomes[page++] ?? 'done'
    },
  }
}

const turnOver = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('ReplayPacer', () => {
  it('runs no page in the call that queues a replay', () => {
    const log: string[] = []
    new ReplayPacer().ready(replayer('a', log, []))
    expect(log).toEqual([])
  })

  it('interleaves the pages of replays that are ready, one page each in turn', async () => {
    const log: string[] = []
    const pacer = new ReplayPacer(1_000)
    pacer.ready(replayer('a', log, ['more', 'more']))
    pacer.ready(replayer('b', log, ['more']))
    pacer.ready(replayer('c', log, []))
    await turnOver()
    await turnOver()
    expect(log).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2'])
    expect(pacer.waiting).toBe(0)
  })

  it('yields to the event loop once a turn has used its budget, and goes on where it stopped', async () => {
    const log: string[] = []
    // A budget of 0: every turn ends after one page.
    const pacer = new ReplayPacer(0)
    pacer.ready(replayer('a', log, ['more', 'more', 'more']))
    pacer.ready(replayer('b', log, ['more', 'more', 'more']))
    // Queued behind the pacer's first turn: it runs after that turn's one page, before the next.
    const seenAfterFirstTurn = new Promise<string[]>((resolve) => setImmediate(() => resolve([...log])))
    expect(await seenAfterFirstTurn).toEqual(['a0'])
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(log).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3'])
  })

  it('leaves a parked replay out until it is ready again', async () => {
    const log: string[] = []
    const pacer = new ReplayPacer(1_000)
    const parked = replayer('p', log, ['parked', 'more'])
    pacer.ready(parked)
    pacer.ready(replayer('x', log, ['more']))
    await turnOver()
    await turnOver()
    expect(log).toEqual(['p0', 'x0', 'x1'])
    pacer.ready(parked)
    await turnOver()
    await turnOver()
    expect(log).toEqual(['p0', 'x0', 'x1', 'p1', 'p2'])
  })
})
