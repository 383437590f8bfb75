/**
 * Debian's Chromium, headless, driven by playwright-core: the browser found on PATH, never
 * one downloaded, with a user-data-dir of its own in a temp folder. Every console error,
 * page error, failed request and error reply is a problem unless the step that provokes it
 * said it would.
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { tempDirSync } from './temp-dirs.js'

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

/** `which chromium`; the error says what to install when there is none. */
export function chromiumPath(): string {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim()
  } catch {
    throw new Error("no chromium on PATH: install Debian's chromium package (apt-get install -y chromium; .ci/run does)")
  }
}

/** A failure the test provokes on purpose: its URL, and what it may look like. */
export interface Provoked {
  readonly url: (url: string) => boolean
}

export interface Browser {
  readonly page: Page
  /** Console errors, page errors, failed requests and error replies nobody provoked. */
  readonly problems: string[]
  /** The ones a `provoking` step expected, to check that they did happen. */
  readonly provoked: string[]
  /** Runs `step`; failures of requests to URLs `expected` matches count as provoked meanwhile. */
  provoking<T>(expected: Provoked, step: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** `extraArgs` are more Chromium switches, e.g. `--host-resolver-rules` to give a local page a name of another site. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  const userDataDir = tempDirSync('chromium')
  const context: BrowserContext = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath(), headless: true, args: [...ARGS, ...extraArgs] })
  const page = context.pages()[0] ?? (await context.newPage())
  const problems: string[] = []
  const provoked: string[] = []
  const expected = new Set<Provoked>()
  const note = (url: string, what: string): void => {
    const isExpected = [...expected].some((provocation) => provocation.url(url))
    ;(isExpected ? provoked : problems).push(`${what} (${url})`)
  }
  page.on('console', (message) => {
    if (message.type() === 'error') note(message.location().url, `console error: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('requestfailed', (request) => note(request.url(), `request failed: ${request.method()} ${request.failure()?.errorText ?? ''}`))
  page.on('response', (response) => {
    if (response.status() >= 400) note(response.url(), `reply ${response.status()} to ${response.request().method()}`)
  })
  return {
    page,
    problems,
    provoked,
    async provoking(provocation, step) {
      expected.add(provocation)
      try {
        return await step()
      } finally {
        expected.delete(provocation)
      }
    },
    async close() {
      page.removeAllListeners()
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}
