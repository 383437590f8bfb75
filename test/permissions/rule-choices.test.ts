import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ruleCommandSplitter } from '../../src/permissions/command-splitter.js'
import { compileRule } from '../../src/permissions/rule-matcher.js'
import { allowsAgain, commandPrefix, offeredChoice, ruleChoicesOf } from '../../src/permissions/rule-choices.js'
import { narrowestRule } from '../../src/permissions/narrowest-rule.js'
import { ruleRequest } from '../support/rule-requests.js'

const WORKSPACE = '/work/project'
const choicesOf = (command: string) => ruleChoicesOf('Bash', { command }, narrowestRule(ruleRequest('Bash', { command }, WORKSPACE)), WORKSPACE)

describe('ruleChoicesOf: the project rules an approval may add', () => {
  it('offers the exact command and its prefix for one command', () => {
    expect(choicesOf('npm test')).toEqual([
      { kind: 'exact', rules: ['Bash(npm test)'] },
      { kind: 'prefix', rules: ['Bash(npm test *)'] },
    ])
    expect(choicesOf('npm run lint -- --fix')[1]).toEqual({ kind: 'prefix', rules: ['Bash(npm run lint *)'] })
    expect(choicesOf('mkdir -p build')[1]).toEqual({ kind: 'prefix', rules: ['Bash(mkdir *)'] })
  })

  it('offers one rule per part of a compound command, never a prefix of the first part alone', () => {
    const choices = choicesOf('git status && rm -rf ./tmp')
    expect(choices).toEqual([
      { kind: 'exact', rules: ['Bash(git status && rm -rf ./tmp)'] },
      { kind: 'prefix', rules: ['Bash(git status *)', 'Bash(rm *)'] },
      { kind: 'segments', rules: ['Bash(git status)', 'Bash(rm -rf ./tmp)'] },
    ])
    // Each choice allows the command shown again; no rule of it alone does, but the exact one.
    for (const choice of choices) expect(allowsAgain(choice.rules, ruleRequest('Bash', { command: 'git status && rm -rf ./tmp' }, WORKSPACE))).toBe(true)
    expect(allowsAgain(['Bash(git status *)'], ruleRequest('Bash', { command: 'git status && rm -rf ./tmp' }, WORKSPACE))).toBe(false)
  })

  it('offers only the exact command when the line cannot be split safely', () => {
    expect(choicesOf('echo $(id) && ls')).toEqual([{ kind: 'exact', rules: ['Bash(echo $(id) && ls)'] }])
    expect(choicesOf('for f in *; do rm $f; done')).toEqual([{ kind: 'exact', rules: ['Bash(for f in \\*; do rm $f; done)'] }])
  })

  it('offers one choice, the suggested rule, for another tool', () => {
    expect(ruleChoicesOf('Edit', { file_path: 'src/a.ts' }, 'Edit(src/a.ts)')).toEqual([{ kind: 'exact', rules: ['Edit(src/a.ts)'] }])
  })

  it('names the prefix by the program and, for a program of subcommands, its subcommand', () => {
    expect(commandPrefix('git push origin main')).toBe('git push')
    expect(commandPrefix('touch made-by-bash.txt')).toBe('touch')
    expect(commandPrefix('git -C x status')).toBe('git')
    expect(commandPrefix('$CMD x')).toBeUndefined()
    expect(commandPrefix('./run.sh x')).toBeUndefined()
  })

  it('a prefix rule stops at a word: Bash(npm test *) does not allow npm test-all', () => {
    const rule = compileRule('Bash(npm test *)', 'allow', ruleCommandSplitter)
    expect(rule.matches(ruleRequest('Bash', { command: 'npm test -- --watch' }, WORKSPACE))).toBe(true)
    expect(rule.matches(ruleRequest('Bash', { command: 'npm test' }, WORKSPACE))).toBe(true)
    expect(rule.matches(ruleRequest('Bash', { command: 'npm test-all' }, WORKSPACE))).toBe(false)
  })

  it('every choice offered for any line allows that line again, and a rule the person did not see is never in it', () => {
    const word = fc.constantFrom('rm', 'ls', '-rf', './tmp', 'git', 'status', 'npm', 'test', '&&', ';', '|', '||', '*', '$(id)', '"a b"', 'x.txt')
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 7 }), (words) => {
        const command = words.join(' ')
        fc.pre(command.trim().length > 0)
        const request = ruleRequest('Bash', { command }, WORKSPACE)
        for (const choice of choicesOf(command)) expect(allowsAgain(choice.rules, request)).toBe(true)
      }),
      { numRuns: 1_000 },
    )
  })

  it('takes back only a choice it offered', () => {
    const choices = choicesOf('git status && rm -rf ./tmp')
    expect(offeredChoice(choices, ['Bash(git status *)', 'Bash(rm *)'])?.kind).toBe('prefix')
    expect(offeredChoice(choices, ['Bash(git status *)'])).toBeUndefined()
    expect(offeredChoice(choices, ['Bash(rm *)', 'Bash(git status *)'])).toBeUndefined()
  })
})
