/**
 * @module Where a command's output goes: a file the command writes itself, stdout and stderr
 * through one descriptor opened for appending, so they interleave in write order and no byte
 * passes through this process. While it runs, progress and snapshots read the file's size and
 * windows of it. Once it is large, a worker hashes it as it grows. At the end, small output is
 * read whole and the file dropped; larger output keeps its head and tail, and the file becomes
 * the artifact under its final name by a rename in the same directory.
 */
import type { ArtifactOpenRequest, ArtifactReservation, ArtifactStore } from '../../contracts/ports.js'
import { DEFAULT_CAPTURE_SIZES, OutputReader, type CaptureSizes, type CapturedOutput } from './captured-output.js'
import { LocalReservation, reserveOutputFile } from './local-reservation.js'
import { DigestFollower } from './digest-follower.js'
import { digestAfterFollowing, worthFollowing } from './output-digest.js'
import { outputSpaceRanOut } from './output-space.js'

export interface CommandOutputOptions {
  readonly artifacts?: ArtifactStore | undefined
  readonly artifact: ArtifactOpenRequest
  readonly sizes?: Partial<CaptureSizes> | undefined
}

// How often the size is checked to start hashing it in the background.
const FOLLOW_CHECK_MS = 50

export interface FinishOptions {
  /** Processes the command started are still running and may still append. */
  readonly stillWriting: boolean
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export class CommandOutput {
  readonly #reservation: ArtifactReservation
  readonly #reader: OutputReader
  readonly #sizes: CaptureSizes
  /** Set once finished or discarded: what is kept, so later questions get the same answer. */
  #final: CapturedOutput | undefined = undefined
  #follower: DigestFollower | undefined = undefined
  #followCheck: NodeJS.Timeout | undefined = undefined

  /** Reserves the file; the command must be given `fd`, then `releaseFd` called. */
  static async create(options: CommandOutputOptions): Promise<CommandOutput> {
    const reservation = await reserveOutputFile(options.artifacts, options.artifact)
    return new CommandOutput(reservation, { ...DEFAULT_CAPTURE_SIZES, ...options.sizes })
  }

  private constructor(reservation: ArtifactReservation, sizes: CaptureSizes) {
    this.#reservation = reservation
    this.#sizes = sizes
    try {
      this.#reader = new OutputReader(reservation.path)
    } catch (error) {
      void reservation.discard()
      throw error
    }
    // A local file is copied into a streamed artifact, which hashes what it is given.
    if (!(reservation instanceof LocalReservation)) this.#followCheck = setInterval(() => this.#followWhenLarge(), FOLLOW_CHECK_MS).unref()
  }

  /** The file the command writes to while it runs. */
  get path(): string {
    return this.#reservation.path
  }

  /** The descriptor to give the command as both stdout and stderr. */
  get fd(): number {
    return this.#reservation.fd
  }

  /** Closes this process's copy of `fd`, once the command holds its own. */
  releaseFd(): void {
    this.#reservation.closeFd()
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#final?.totalBytes ?? this.#reader.size()
  }

  /** The last `bytes` written so far, for progress. */
  tail(bytes: number): string {
    return this.#final === undefined ? this.#reader.tail(this.#reader.size(), bytes) : ''
  }

  /** What was written so far, without ending anything (a running background task). */
  peek(): CapturedOutput {
    return this.#final ?? this.#reader.capture(this.#reader.size(), this.#sizes)
  }

  /**
   * The output as it stands now. Exactly the bytes present now are kept: what a process left
   * running appends later is not part of it (the artifact is then a copy of those bytes).
   */
  async finish(options: FinishOptions): Promise<CapturedOutput> {
    const size = this.#reader.size()
    const captured = this.#reader.capture(size, this.#sizes)
    this.#settle(captured)
    const outputLost = outputSpaceRanOut(this.#reservation.path)
    if (outputLost !== undefined) {
      // What the disk took may be cut anywhere: no artifact is kept of it.
      this.#follower?.stop()
      await this.#reservation.discard()
      return { ...captured, outputLost }
    }
    if (captured.omitted === undefined) {
      this.#follower?.stop()
      await this.#reservation.discard()
      return captured
    }
    try {
      const local = this.#reservation instanceof LocalReservation
      const sha256 = local ? undefined : await digestAfterFollowing(this.#follower, this.#reservation.path, size)
      const artifact = await this.#reservation.commit({ bytes: size, sha256, copy: options.stillWriting })
      return { ...captured, artifact }
    } catch (error) {
      this.#follower?.stop()
      await this.#reservation.discard()
      return { ...captured, artifactError: messageOf(error) }
    }
  }

  /** Drops the output and its file (an aborted call). */
  async discard(): Promise<void> {
    this.#settle({ totalBytes: this.#reader.size(), text: '' })
    this.#follower?.stop()
    await this.#reservation.discard()
  }

  /** Stops reading; from now on `final` answers for the output. */
  #settle(final: CapturedOutput): void {
    if (this.#final !== undefined) throw new Error('command output is already finished')
    this.#final = final
    clearInterval(this.#followCheck)
    this.#reader.close()
  }

  #followWhenLarge(): void {
    try {
      if (!worthFollowing(this.#reader.size())) return
      clearInterval(this.#followCheck)
      this.#follower = new DigestFollower(this.#reservation.path)
    } catch {
      // No follower (no thread to be had): the file is hashed after the exit instead.
      clearInterval(this.#followCheck)
    }
  }
}
