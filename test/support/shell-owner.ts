/**
 * A process that starts one shell command through spawnShell and then waits to be killed:
 * argv[2] is the command, argv[3] the output file. The crash test kills it with SIGKILL.
 */
import { openSync } from 'node:fs'
import { spawnShell } from '../../src/tools/bash/process-tree.js'

const [command, outputFile] = process.argv.slice(2)
if (command === undefined || outputFile === undefined) throw new Error('usage: shell-owner.ts <command> <output file>')
const shell = spawnShell(command, process.cwd(), process.env, openSync(outputFile, 'a'))
const pgid = await shell.groupId
process.stdout.write(`${pgid}\n`)
setInterval(() => {}, 60_000)
