/**
 * Clients generated from openapi.yaml by two generators, as their users would make them:
 * openapi-typescript with openapi-fetch, and @hey-api/openapi-ts. Each is generated into a
 * temporary folder with a small consumer (test/generated-clients), compiled by tsc in strict
 * mode and run against a real server: it creates a session, posts a schedule, reads the
 * events narrowed by their type, answers the approval and reads the result; a schedule for a
 * session never created is a typed 404, and one with createSession makes its session.
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { createClient as generateHeyApiClient } from '@hey-api/openapi-ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { OPENAPI_YAML_PATH, REPO_ROOT, renderOpenApiTypes } from '../../scripts/generate-openapi.js'
import { startTestServer, type TestServer } from '../support/server.js'
import { builtinTools } from '../../src/tools/builtin.js'
import { tempDir } from '../support/temp-dirs.js'
import { arrayContaining } from '../support/matchers.js'

const run = promisify(execFile)
const CONSUMERS = path.join(REPO_ROOT, 'test', 'generated-clients')
const TOKEN = 'generated-client-token'
const READ_CONTENT = '     1\ta draft'
const editContent = (file: string): string => `The file ${file} has been updated successfully (1 replacement).`

const STRICT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    // DOM for the fetch types the hey-api client names (BodyInit), as in a browser project.
    lib: ['ES2023', 'DOM'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    outDir: 'dist',
    rootDir: '.',
  },
  include: ['*.ts', 'hey/**/*.ts'],
}

let server: TestServer
let folder: string

beforeAll(async () => {
  folder = await tempDir('clients')
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(folder, 'node_modules'), 'dir')
  await writeFile(path.join(folder, 'package.json'), JSON.stringify({ type: 'module', private: true }))
  await writeFile(path.join(folder, 'tsconfig.json'), JSON.stringify(STRICT_TSCONFIG))
  for (const file of await readdir(CONSUMERS)) await copyFile(path.join(CONSUMERS, file), path.join(folder, file))
  // Both from the committed document, as a user of the repository would generate them.
  const document = parse(await readFile(OPENAPI_YAML_PATH, 'utf8')) as Record<string, unknown>
  await writeFile(path.join(folder, 'openapi.d.ts'), await renderOpenApiTypes(document))
  await generateHeyApiClient({
    input: OPENAPI_YAML_PATH,
    output: path.join(folder, 'hey'),
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    logs: { level: 'silent' },
  })
  await mkdir(path.join(folder, 'dist'))
  try {
    await run(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', folder], { cwd: folder })
  } catch (error) {
    throw new Error(`the consumers do not compile against the generated clients:\n${(error as { stdout?: string }).stdout ?? String(error)}`, { cause: error })
  }
  // With a token, so each client's bearer header is exercised as the document describes it.
  // The built-in tools on a real workspace (the server's data directory): a real Read and an Edit that asks.
  server = await startTestServer({ tools: builtinTools(), env: { TOOLEXEC_TOKEN: TOKEN } })
}, 120_000)

afterAll(async () => {
  await server?.close()
  if (folder !== undefined) await rm(folder, { recursive: true, force: true })
})

async function consume(consumer: string, sessionId: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, [path.join(folder, 'dist', `${consumer}.js`), server.url, TOKEN, sessionId], { cwd: folder, timeout: 30_000 })
  return JSON.parse(stdout)
}

describe('clients generated from openapi.yaml', () => {
  it.each(['openapi-fetch', 'hey-api'])('the %s consumer compiles in strict mode and drives a schedule with an approval from the typed events', async (consumer) => {
    const notes = path.join(server.dataDir, 'notes.txt')
    await writeFile(notes, 'a draft\n')
    const outcome = await consume(consumer, `generated-${consumer}`)
    expect(await readFile(notes, 'utf8')).toBe('a final\n')
    expect(outcome).toEqual({
      sessionStatus: 'idle',
      eventTypes: arrayContaining(['ScheduleAccepted', 'BatchStarted', 'ToolCallStarted', 'PermissionRequested', 'PermissionResolved', 'ToolCallResult', 'BatchCompleted', 'ScheduleCompleted']),
      askedFor: 'Edit',
      answeredBy: 'client',
      streamedResults: { 'read-1': READ_CONTENT, 'edit-1': editContent(notes) },
      scheduleStatus: 'completed',
      records: {
        'read-1': { status: 'succeeded', modelContent: READ_CONTENT },
        'edit-1': { status: 'succeeded', modelContent: editContent(notes) },
      },
      unknownScheduleCode: 'API_ERR_SCHEDULE_NOT_FOUND',
      unknownSessionCode: 'API_ERR_SESSION_NOT_FOUND',
      createdSessionMode: 'plan',
    })
    expect(await server.runtime.store.sessions.get(`generated-${consumer}-typo`)).toBeUndefined()
  })
})
