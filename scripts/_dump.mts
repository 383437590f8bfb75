import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { buildApp } from '../src/http/app.js'
import { createRuntime } from '../src/sessions/runtime.js'
import { builtinTools } from '../src/tools/builtin.js'
const dir = mkdtempSync(path.join(os.tmpdir(), 'oa-'))
const logger = pino({ level: 'silent' })
const runtime = createRuntime({ dataDir: dir, workspace: dir, tools: builtinTools(), logger })
const app = await buildApp({ runtime, logger })
await app.ready()
console.log(JSON.stringify(app.swagger(), null, 1))
await app.close(); runtime.close()
