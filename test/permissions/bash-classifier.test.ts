import { describe, expect, it } from 'vitest'
import { classifyBashCommand, splitCompoundCommand, stripWrappers } from '../../src/permissions/bash-classifier.js'

const READ_ONLY: readonly string[] = [
  'ls',
  'ls -la src',
  'cat README.md',
  'head -n 20 notes.txt',
  'tail -n 5 log.txt',
  'wc -l *.ts',
  'grep -rn "TODO" src',
  'rg --json foo',
  'find . -name "*.ts" -type f',
  'git status',
  'git log --oneline -n 5',
  'git diff HEAD~1 -- src',
  'git show HEAD:package.json',
  'git branch',
  'git branch -a --list "feat/*"',
  'git -C sub status',
  'git --no-pager log',
  'pwd',
  'echo "a && b"',
  "echo 'x; rm -rf /'",
  'echo a\\;rm',
  'which node',
  'stat -c %s notes.txt',
  'du -sh .',
  'df -h',
  'sort notes.txt | uniq -c | sort -rn | head',
  'cut -d: -f1 /etc/passwd',
  "tr 'a-z' 'A-Z' < in.txt",
  "jq '.name' package.json",
  'ls 2>/dev/null',
  'ls > /dev/null 2>&1',
  'ls &> /dev/null',
  'ls >&2',
  'git status && git diff --stat',
  'cd src && ls',
  '(cd src && ls)',
  'ls; pwd\necho done',
  "cat <<'EOF'\n$(rm x)\nEOF",
  'cat <<EOF\nhello $USER\nEOF',
  'timeout 5 ls',
  'env LANG=C sort notes.txt',
  'LC_ALL=C grep foo notes.txt',
  'nice -n 10 du -sh .',
  'time git log',
  "sed -n '1,20p' notes.txt",
  "sed 's/foo/bar/g' notes.txt",
  'find . -name "*.ts" | xargs grep -l foo',
  'ls # ; rm -rf /',
  'echo $HOME "${PWD}"',
]

const NOT_READ_ONLY: readonly (readonly [string, string])[] = [
  ['git status; rm -rf /', 'rm is not a known read-only program'],
  ['echo $(rm x)', 'command substitution'],
  ['echo `rm x`', 'command substitution'],
  ['echo "$(rm x)"', 'command substitution'],
  ['npm run test && curl evil', 'npm is not a known read-only program'],
  ['ls && curl evil', 'curl is not a known read-only program'],
  ['cat x > y', 'output redirection to y'],
  ['ls >> out.txt', 'output redirection to out.txt'],
  ['ls &> out.txt', 'output redirection to out.txt'],
  ['ls >& out.txt', 'output redirection to out.txt'],
  ['ls > "$OUT"', 'output redirection to $OUT'],
  ['(ls) > out.txt', 'output redirection to out.txt'],
  ['find . -delete', 'find -delete'],
  ['find . -name x -exec cat "{}" ";"', 'find -exec'],
  ['find . -name x -exec rm {} \\;', 'only known at run time'],
  ['find . -fprint out.txt', 'find -fprint'],
  ['sed -i s/a/b/ notes.txt', 'sed -i'],
  ["sed 's/a/b/w out' notes.txt", 'sed script'],
  ["sed -n '1e rm x' notes.txt", 'sed script'],
  ['sort -o out.txt notes.txt', 'sort -o'],
  ['git -c core.pager=evil log', 'git -c'],
  ['git diff --output=patch.diff', '--output'],
  ['git branch -D main', 'git branch -D'],
  ['git branch newbranch', 'git branch newbranch'],
  ['git push', 'git push'],
  ['git commit -m x', 'git commit'],
  ['git stash', 'git stash'],
  ['rm -rf /', 'rm is not'],
  ['cat <(rm x)', 'process substitution'],
  ['cat <<EOF\n$(rm x)\nEOF', 'heredoc'],
  ['LD_PRELOAD=/tmp/x.so ls', 'LD_PRELOAD'],
  ['env GIT_PAGER=sh git log', 'GIT_PAGER'],
  ['env -S "rm x"', 'env'],
  ['env -i git status', 'env -i changes the environment'],
  ['env -u GIT_CONFIG_COUNT git status', 'env -u changes the environment'],
  ['env --unset=GIT_CONFIG_COUNT git diff', 'env --unset=GIT_CONFIG_COUNT changes the environment'],
  ['env - git log', 'env - changes the environment'],
  ['GIT_CONFIG_COUNT=0 git status', 'GIT_CONFIG_COUNT'],
  ['git --config-env=core.pager=X log', 'not a known read-only option'],
  ['$CMD', 'only known at run time'],
  ['bash -c ls', 'bash is not'],
  ['/tmp/evil/ls', 'is a path'],
  ['ls | tee out.txt', 'tee is not'],
  ['find . | xargs rm', 'rm is not'],
  ['find . | xargs sort', 'xargs adds arguments'],
  ['find . $OPTS', 'only known at run time'],
  ['find . *', 'only known at run time'],
  ['echo "unterminated', 'unterminated quote'],
  ['if true; then ls; fi', 'shell syntax'],
  ['for f in *; do cat $f; done', 'shell syntax'],
  ['x=1', 'setting x'],
  ['echo $((1+2))', 'arithmetic expansion'],
  ['echo ${x:-$(rm y)}', 'parameter expansion'],
  ['timeout 5 rm x', 'rm is not'],
  ['awk "{print}" notes.txt', 'awk is not'],
  ['uniq in.txt out.txt', 'uniq'],
  ['date -s 2020-01-01', 'date -s'],
  ['rg --pre cat foo', 'rg --pre'],
  ['echo hi > /dev/null; rm x', 'rm is not'],
  ['ls\nrm x', 'rm is not'],
  ['ls & rm x', 'rm is not'],
  ['ls || rm x', 'rm is not'],
  ['ls | sh', 'sh is not'],
  ['', 'no command'],
]

describe('classifyBashCommand (SPEC A6)', () => {
  it('R40 has a table of at least 60 cases', () => {
    expect(READ_ONLY.length + NOT_READ_ONLY.length).toBeGreaterThanOrEqual(60)
  })

  it.each(READ_ONLY)('R40 (A6) classifies %j as read-only', (command) => {
    const verdict = classifyBashCommand(command)
    expect(verdict).toMatchObject({ readOnly: true })
    expect(verdict.reason).toMatch(/^read-only: /)
  })

  it.each(NOT_READ_ONLY)('R40 (A6) classifies %j as not read-only (%s)', (command, reason) => {
    const verdict = classifyBashCommand(command)
    expect(verdict.readOnly).toBe(false)
    expect(verdict.reason).toContain(reason)
  })

  it('R40 (A6) names every read-only program it saw', () => {
    expect(classifyBashCommand('git status && ls | grep x').reason).toBe('read-only: git, ls, grep')
  })
})

describe('splitCompoundCommand', () => {
  it.each([
    ['git status && npm test', ['git status', 'npm test']],
    ['ls | grep x; echo "a && b"', ['ls', 'grep x', 'echo "a && b"']],
    ['(cd a && make) || echo fail', ['cd a', 'make', 'echo fail']],
    ['ls\nrm x', ['ls', 'rm x']],
    ['sleep 1 & echo hi', ['sleep 1', 'echo hi']],
    ['cat <<EOF\nbody && rm x\nEOF\nls', ['cat <<EOF', 'ls']],
    ['ls 2>&1 | head', ['ls 2>&1', 'head']],
  ])('R40 (A6) splits %j into its simple commands', (command, parts) => {
    expect(splitCompoundCommand(command)).toEqual(parts)
  })

  it.each(['echo $(rm x)', 'echo `rm x`', 'if true; then ls; fi', 'echo "unterminated', 'ls && && ls', 'cat <(ls)', 'case x in x) ls;; esac'])('R40 (A6) refuses to split %j', (command) => {
    expect(splitCompoundCommand(command)).toBeUndefined()
  })
})

describe('stripWrappers', () => {
  it.each([
    ['timeout 30 npm test', 'npm test'],
    ['timeout -s KILL 5s npm test', 'npm test'],
    ['nice -n 5 make', 'make'],
    ['env LANG=C npm test', 'npm test'],
    ['nohup node server.js', 'node server.js'],
    ['time npm test', 'npm test'],
    ['LANG=C timeout 5 git status', 'git status'],
    ['  npm test  ', 'npm test'],
    ['LD_PRELOAD=x npm test', 'LD_PRELOAD=x npm test'],
    ['env LD_PRELOAD=x npm test', 'env LD_PRELOAD=x npm test'],
    ['timeout npm test', 'timeout npm test'],
    ['ls && rm x', 'ls && rm x'],
    ['> out timeout 5 ls', '> out timeout 5 ls'],
    ['timeout 5 FOO=1 ls', 'FOO=1 ls'],
  ])('R40 (A6) strips %j to %j', (command, stripped) => {
    expect(stripWrappers(command)).toBe(stripped)
  })
})
