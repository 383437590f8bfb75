/**
 * @module Where a command's output goes while it runs: stdout and stderr interleaved in
 * arrival order. Small output stays in memory whole; past `spillBytes` everything streams to
 * an artifact as it arrives and only a head and a tail window stay in memory, so memory is
 * bounded whatever the size. Without a streaming artifact store, or when it fails, the head
 * and the tail are all that is kept.
 */
import type { ArtifactOpenRequest, ArtifactRef, ArtifactStore, ArtifactStream } from '../../contracts/ports.js'
import { ByteHead, ByteTail } from './byte-window.js'

export type StreamName = 'stdout' | 'stderr'

export const DEFAULT_SPILL_BYTES = 256 * 1024
export const DEFAULT_HEAD_BYTES = 16 * 1024
// Covers the bash_output display, which keeps the last 150000 bytes (R38).
export const DEFAULT_TAIL_BYTES = 160 * 1024
export const DEFAULT_STREAM_TAIL_BYTES = 2 * 1024

export interface OutputSinkOptions {
  readonly artifacts?: ArtifactStore | undefined
  readonly artifact: ArtifactOpenRequest
  readonly spillBytes?: number | undefined
  readonly headBytes?: number | undefined
  readonly tailBytes?: number | undefined
  readonly streamTailBytes?: number | undefined
}

export interface OutputCounts {
  readonly stdoutBytes: number
  readonly stderrBytes: number
  readonly totalBytes: number
}

export interface CapturedOutput extends OutputCounts {
  /** The whole output; or, when it was too large to keep, its head and its tail around a marker. */
  readonly text: string
  /** When the middle is not in `text`: the head and tail as kept, and the bytes left out. */
  readonly omitted?: { readonly head: string; readonly tail: string; readonly bytes: number } | undefined
  readonly artifact?: ArtifactRef | undefined
  readonly artifactError?: string | undefined
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export function omissionMarker(bytes: number): string {
  return `\n\n... [${bytes} bytes omitted] ...\n\n`
}

export class OutputSink {
  readonly #options: OutputSinkOptions
  readonly #spillBytes: number
  readonly #stdoutTail: ByteTail
  readonly #stderrTail: ByteTail
  readonly #head: ByteHead
  readonly #tail: ByteTail
  #stdoutBytes = 0
  #stderrBytes = 0
  /** Every chunk, until the output spills. */
  #whole: Buffer[] | undefined = []
  #stream: ArtifactStream | undefined = undefined
  /** Chunks waiting for the artifact: while it opens, or while it is saturated. */
  #backlog: Buffer[] = []
  #busy: Promise<void> | undefined = undefined
  #artifactError: string | undefined = undefined

  constructor(options: OutputSinkOptions) {
    this.#options = options
    this.#spillBytes = options.spillBytes ?? DEFAULT_SPILL_BYTES
    const streamTail = options.streamTailBytes ?? DEFAULT_STREAM_TAIL_BYTES
    this.#stdoutTail = new ByteTail(streamTail)
    this.#stderrTail = new ByteTail(streamTail)
    this.#head = new ByteHead(options.headBytes ?? DEFAULT_HEAD_BYTES)
    this.#tail = new ByteTail(options.tailBytes ?? DEFAULT_TAIL_BYTES)
  }

  get counts(): OutputCounts {
    return { stdoutBytes: this.#stdoutBytes, stderrBytes: this.#stderrBytes, totalBytes: this.#stdoutBytes + this.#stderrBytes }
  }

  /** The last bytes of one stream, for progress. */
  streamTail(name: StreamName): string {
    return (name === 'stdout' ? this.#stdoutTail : this.#stderrTail).text()
  }

  /** Returns a promise only when the producer should wait (the artifact is opening or saturated). */
  write(name: StreamName, chunk: Buffer): void | Promise<void> {
    if (name === 'stdout') {
      this.#stdoutBytes += chunk.length
      this.#stdoutTail.push(chunk)
    } else {
      this.#stderrBytes += chunk.length
      this.#stderrTail.push(chunk)
    }
    this.#head.push(chunk)
    this.#tail.push(chunk)
    const whole = this.#whole
    if (whole !== undefined) {
      whole.push(chunk)
      return this.counts.totalBytes > this.#spillBytes ? this.#spill(whole) : undefined
    }
    return this.#toArtifact(chunk)
  }

  /** What was captured so far, without ending anything (a running background task). */
  peek(): CapturedOutput {
    const whole = this.#whole
    if (whole !== undefined) return { ...this.counts, text: Buffer.concat(whole).toString('utf8') }
    return this.#windows(undefined)
  }

  /** Waits for pending writes, then publishes the artifact if there is one. */
  async finish(): Promise<CapturedOutput> {
    await this.#idle()
    const whole = this.#whole
    if (whole !== undefined) return { ...this.counts, text: Buffer.concat(whole).toString('utf8') }
    let artifact: ArtifactRef | undefined
    if (this.#stream !== undefined) {
      try {
        artifact = await this.#stream.close()
      } catch (error) {
        this.#artifactError ??= messageOf(error)
      }
    }
    return this.#windows(artifact)
  }

  /** Drops everything, the partial artifact included (an aborted call). */
  async discard(): Promise<void> {
    await this.#idle()
    this.#whole = undefined
    await this.#stream?.discard()
  }

  #windows(artifact: ArtifactRef | undefined): CapturedOutput {
    const head = this.#head.text()
    const tail = this.#tail.text()
    const counts = this.counts
    const bytes = Math.max(0, counts.totalBytes - Buffer.byteLength(head) - Buffer.byteLength(tail))
    return {
      ...counts,
      text: head + omissionMarker(bytes) + tail,
      omitted: { head, tail, bytes },
      artifact,
      artifactError: this.#artifactError,
    }
  }

  #spill(whole: Buffer[]): Promise<void> | undefined {
    this.#whole = undefined
    const store = this.#options.artifacts
    if (store?.open === undefined) {
      this.#artifactError = 'the artifact store cannot stream output'
      return undefined
    }
    this.#backlog = whole
    const opened = store.open(this.#options.artifact).then((stream) => {
      this.#stream = stream
      return this.#drainBacklog()
    })
    return this.#track(opened.catch((error: unknown) => this.#fail(error)))
  }

  #toArtifact(chunk: Buffer): void | Promise<void> {
    if (this.#busy !== undefined) {
      this.#backlog.push(chunk)
      return this.#busy
    }
    const stream = this.#stream
    if (stream === undefined) return undefined
    let wait: void | Promise<void>
    try {
      wait = stream.write(chunk)
    } catch (error) {
      return this.#track(this.#fail(error))
    }
    if (wait === undefined) return undefined
    return this.#track(wait.then(() => this.#drainBacklog()).catch((error: unknown) => this.#fail(error)))
  }

  /** Marks the sink busy until `work` ends; chunks that came meanwhile are written next. */
  #track(work: Promise<void>): Promise<void> {
    const tracked: Promise<void> = work.then(() => {
      if (this.#busy !== tracked) return undefined
      this.#busy = undefined
      if (this.#backlog.length === 0) return undefined
      return this.#track(this.#drainBacklog().catch((error: unknown) => this.#fail(error)))
    })
    this.#busy = tracked
    return tracked
  }

  async #drainBacklog(): Promise<void> {
    while (this.#backlog.length > 0) {
      const stream = this.#stream
      const chunks = this.#backlog
      this.#backlog = []
      if (stream === undefined) return
      for (const chunk of chunks) {
        const wait = stream.write(chunk)
        if (wait !== undefined) await wait
      }
    }
  }

  /** The artifact failed: the head and tail windows are still kept, and the call goes on. */
  async #fail(error: unknown): Promise<void> {
    this.#artifactError ??= messageOf(error)
    this.#backlog = []
    const stream = this.#stream
    this.#stream = undefined
    await stream?.discard().catch(() => undefined)
  }

  async #idle(): Promise<void> {
    while (this.#busy !== undefined) await this.#busy
  }
}
