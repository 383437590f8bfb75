/**
 * `npm run bench:tools`: Grep against GNU grep, a confined no-op command against an
 * unconfined one, and Bash streaming 1 GiB against the raw command. The sandbox runs before
 * the 1 GiB writes, whose writeback would otherwise slow every process start it measures.
 */
import { benchBash } from './tools-bash.js'
import { benchSandbox } from './tools-sandbox.js'
import { benchGrep } from './tools-grep.js'

for (const line of await benchGrep()) console.log(line)
console.log('')
for (const line of await benchSandbox()) console.log(line)
console.log('')
for (const line of await benchBash()) console.log(line)
