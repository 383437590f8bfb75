/** `npm run bench:tools`: Grep against GNU grep, and Bash streaming 1 GiB against the raw command. */
import { benchBash } from './tools-bash.js'
import { benchGrep } from './tools-grep.js'

for (const line of await benchGrep()) console.log(line)
console.log('')
for (const line of await benchBash()) console.log(line)
