/**
 * @module Schedules and tools in a model API's shape. An image saved as an artifact (R36) no
 * longer carries its bytes in the result: they are read back from the artifact here.
 */
import { readFile } from 'node:fs/promises'
import type { CallRecord, FormattedScheduleReply, ScheduleReply } from '../contracts/api.js'
import type { ModelContent, ModelContentBlock } from '../contracts/model-content.js'
import type { AnthropicTool, ModelFormat, OpenAIChatTool, OpenAIResponsesTool } from '../contracts/model-formats.js'
import type { ArtifactRef } from '../contracts/ports.js'
import { anthropicTools } from '../model-formats/anthropic.js'
import { formattedSchedule, isScheduleDone } from '../model-formats/formatted-schedule.js'
import type { ModelResult, ResolvedBlock, ResolvedContent } from '../model-formats/model-result.js'
import { openaiChatTools } from '../model-formats/openai-chat.js'
import { openaiResponsesTools } from '../model-formats/openai-responses.js'
import type { ListedTool } from '../model-formats/tool-schema.js'
import { parseArtifactUri } from '../contracts/artifact-uri.js'

/** The artifact of a session by id, as the store records it. */
export type ArtifactLookup = (sessionId: string, artifactId: string) => Promise<Pick<ArtifactRef, 'path' | 'bytes'> | undefined>

export function toolsInFormat(tools: readonly ListedTool[], format: ModelFormat): AnthropicTool[] | OpenAIChatTool[] | OpenAIResponsesTool[] {
  if (format === 'anthropic') return anthropicTools(tools)
  if (format === 'openai-chat') return openaiChatTools(tools)
  return openaiResponsesTools(tools)
}

export async function scheduleInFormat(schedule: ScheduleReply, format: ModelFormat, lookup: ArtifactLookup): Promise<FormattedScheduleReply> {
  if (!isScheduleDone(schedule)) return formattedSchedule(schedule, format, undefined)
  const results = await Promise.all(schedule.calls.map((call) => modelResultOf(call, schedule.sessionId, lookup)))
  return formattedSchedule(schedule, format, results)
}

async function modelResultOf(call: CallRecord, sessionId: string, lookup: ArtifactLookup): Promise<ModelResult> {
  return { id: call.id, content: await resolvedContent(call.modelContent ?? '', sessionId, lookup), isError: call.result?.isError ?? true }
}

async function resolvedContent(content: ModelContent, sessionId: string, lookup: ArtifactLookup): Promise<ResolvedContent> {
  if (typeof content === 'string') return content
  return Promise.all(content.map((block) => resolvedBlock(block, sessionId, lookup)))
}

async function resolvedBlock(block: ModelContentBlock, sessionId: string, lookup: ArtifactLookup): Promise<ResolvedBlock> {
  if (block.type === 'text') return block
  if (block.data !== undefined) return { type: 'image', mediaType: block.mediaType, data: block.data }
  const bytes = await artifactBytes(block.artifactUri, sessionId, lookup)
  if (bytes === undefined) return { type: 'text', text: `[${block.mediaType} image no longer available: its artifact ${block.artifactUri ?? '(none)'} is gone]` }
  return { type: 'image', mediaType: block.mediaType, data: bytes.toString('base64') }
}

/** Only an artifact of the schedule's own session, and only the bytes it was recorded with. */
async function artifactBytes(uri: string | undefined, sessionId: string, lookup: ArtifactLookup): Promise<Buffer | undefined> {
  const named = uri === undefined ? undefined : parseArtifactUri(uri)
  if (named === undefined || named.sessionId !== sessionId) return undefined
  const artifact = await lookup(sessionId, named.artifactId)
  if (artifact === undefined) return undefined
  try {
    return (await readFile(artifact.path)).subarray(0, artifact.bytes)
  } catch {
    return undefined
  }
}
