/**
 * Tool fixtures for the crash and recovery tests. Every handler run first writes one marker
 * file, synchronously, so runs can be counted across a SIGKILL and a restart: a call that
 * was interrupted and never re-run has exactly the markers of its first life.
 */
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { Type } from '@sinclair/typebox'
import path from 'node:path'
import type { ToolCallContext } from '../../src/contracts/ports.js'
import type { ToolEntry } from '../../src/contracts/tool-entry.js'
import { dumpTool, editTool, readTool, sleepTool } from './tools.js'

interface RunMarker {
  readonly sessionId: string
  readonly callId: string
  readonly pid: number
}

function writeMarker(markerDir: string, ctx: ToolCallContext): void {
  const marker: RunMarker = { sessionId: ctx.sessionId, callId: ctx.callId, pid: process.pid }
  writeFileSync(path.join(markerDir, `run-${randomUUID()}.json`), JSON.stringify(marker))
}

/** The same tool, but each handler run leaves a marker in `markerDir` before it starts. */
export function countRuns(entry: ToolEntry, markerDir: string): ToolEntry {
  return {
    ...entry,
    handler: function countedHandler(input, ctx) {
      writeMarker(markerDir, ctx)
      return entry.handler(input, ctx)
    },
  }
}

/** Runs until the file at `path` exists (a test says when), then succeeds; stops when aborted. */
export const waitForFileTool: ToolEntry = {
  ...sleepTool('WaitForFile'),
  description: 'Waits until the file at path exists',
  inputSchema: Type.Object({ path: Type.String() }),
  handler: (input, ctx) =>
    new Promise((resolve, reject) => {
      const file = (input as { path: string }).path
      const timer = setInterval(() => {
        if (!existsSync(file)) return
        clearInterval(timer)
        resolve(`found ${file}`)
      }, 20)
      ctx.signal.addEventListener('abort', () => {
        clearInterval(timer)
        reject(ctx.signal.reason as Error)
      })
    }),
}

/** Read (parallel, no approval), Edit (serial, asks in mode `default`), Sleep (parallel, slow), WaitForFile, Dump (saves an artifact), all counted. */
export function crashTools(markerDir: string): ToolEntry[] {
  return [readTool, editTool, sleepTool(), waitForFileTool, dumpTool].map((entry) => countRuns(entry, markerDir))
}

export function runKey(sessionId: string, callId: string): string {
  return `${sessionId}/${callId}`
}

/** For each `session/call`, the pid of every process whose handler run started, over all processes that used `markerDir`. */
export function runsByCall(markerDir: string): Map<string, number[]> {
  const runs = new Map<string, number[]>()
  for (const name of readdirSync(markerDir)) {
    const marker = JSON.parse(readFileSync(path.join(markerDir, name), 'utf8')) as RunMarker
    const key = runKey(marker.sessionId, marker.callId)
    runs.set(key, [...(runs.get(key) ?? []), marker.pid])
  }
  return runs
}
