#!/usr/bin/env node
// A hook that reads its JSON input and answers with the text of its first argument.
// Usage: node reply.mjs '<reply>' [exit code] [delay ms] [file to record the input in]
// `{{name}}` in the reply becomes the input's field `name` (a string as is, anything else as JSON).
import { writeFileSync } from 'node:fs'

const [reply = '', code = '0', delayMs = '0', record] = process.argv.slice(2)
let text = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  text += chunk
})
process.stdin.on('end', () => {
  const input = JSON.parse(text)
  if (record !== undefined) writeFileSync(record, text)
  const out = reply.replace(/\{\{(\w+)\}\}/g, (_, name) => (typeof input[name] === 'string' ? input[name] : JSON.stringify(input[name])))
  setTimeout(() => {
    process.stdout.write(out)
    if (Number(code) !== 0) process.stderr.write(`reply.mjs exits with ${code}\n`)
    process.exitCode = Number(code)
  }, Number(delayMs))
})
