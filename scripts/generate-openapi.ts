/**
 * @module `npm run openapi`: writes openapi.yaml and test/generated/openapi.d.ts from the
 * route schemas, by building the real app on a throwaway data dir. test/http/openapi.test.ts
 * renders both again in memory and fails when a committed file is out of date.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript'
import { pino } from 'pino'
import { stringify } from 'yaml'
import { buildApp } from '../src/http/app.js'
import { createRuntime } from '../src/wiring.js'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const OPENAPI_YAML_PATH = path.join(REPO_ROOT, 'openapi.yaml')
export const OPENAPI_TYPES_PATH = path.join(REPO_ROOT, 'test', 'generated', 'openapi.d.ts')

const NOTICE = 'Generated from the route schemas by `npm run openapi` (scripts/generate-openapi.ts). Do not edit.'
const YAML_HEADER = `# ${NOTICE}\n`
const TYPES_HEADER = `/** ${NOTICE} */\n\n`

/** The document exactly as the server serves it at /openapi.json. */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'toolexec-openapi-'))
  const logger = pino({ level: 'silent' })
  // The routes do not depend on the tools, so none are registered.
  const runtime = await createRuntime({ dataDir, workspace: dataDir, tools: [], logger })
  try {
    const app = await buildApp({ runtime, logger })
    await app.ready()
    // A plain JSON copy: no shared object references (YAML aliases) and no undefined.
    const document = JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>
    await app.close()
    return document
  } finally {
    await runtime.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

export function renderOpenApiYaml(document: Record<string, unknown>): string {
  return YAML_HEADER + stringify(document, { lineWidth: 0, aliasDuplicateObjects: false, sortMapEntries: false })
}

export async function renderOpenApiTypes(document: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(document as unknown as OpenAPI3)
  return TYPES_HEADER + astToString(ast)
}

async function main(): Promise<void> {
  const document = await buildOpenApiDocument()
  await writeFile(OPENAPI_YAML_PATH, renderOpenApiYaml(document))
  await mkdir(path.dirname(OPENAPI_TYPES_PATH), { recursive: true })
  await writeFile(OPENAPI_TYPES_PATH, await renderOpenApiTypes(document))
  process.stdout.write(`wrote ${path.relative(REPO_ROOT, OPENAPI_YAML_PATH)} and ${path.relative(REPO_ROOT, OPENAPI_TYPES_PATH)}\n`)
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (invokedDirectly) await main()
