/**
 * @module What keeps a read-only git command from starting a program (SPEC A6). Git runs
 * programs named in its configuration: `core.fsmonitor` on `git status`, a pager, hooks, a
 * textconv or a filter of a diff or clean, an external diff. A repository's `.git/config`
 * may come with the files (an unpacked archive) or be written by the model, so a read-only
 * command must not honour it. Two measures:
 *
 * - Keys with a fixed name are overridden with harmless values in the environment
 *   (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, which beat every config
 *   file and every `include`), and the server's own `GIT_*` variables are left out. The Bash
 *   tool gives this environment to every command the classifier calls read-only, however it
 *   was allowed; the values are harmless, so an approved `git diff` still works.
 * - Keys whose name holds a driver (`diff.<driver>.textconv`, `filter.<driver>.clean`, ...)
 *   cannot be overridden without knowing the name, and `diff.external` has no value that
 *   means "none". The repository's own config (its local and worktree files and what they
 *   include) is read before a read-only command runs unasked; if it sets any of these, the
 *   command asks (git-config-programs.ts). The user's global and the system config are the
 *   operator's, not the repository's, and are trusted.
 */

/** [key, value]: each value starts nothing, or only the program git would use anyway. */
const OVERRIDES: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['core.askPass', ''],
  ['core.sshCommand', 'ssh'],
  ['core.alternateRefsCommand', ''],
  // An empty value empties the list of helpers from every file before it.
  ['credential.helper', ''],
  // No transport at all: no ssh, no ext::, no lazy fetch of a partial clone's objects.
  ['protocol.allow', 'never'],
  ['gpg.program', 'gpg'],
  ['gpg.openpgp.program', 'gpg'],
  ['gpg.x509.program', 'gpgsm'],
  ['gpg.ssh.program', 'ssh-keygen'],
  ['gpg.ssh.defaultKeyCommand', ''],
  ['log.showSignature', 'false'],
  // A submodule's own config is not read before the command runs: git is kept out of them.
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
]

const FIXED_VARIABLES: Readonly<Record<string, string>> = {
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  // `git status` refreshes and writes the index when it can: a read-only command does not.
  GIT_OPTIONAL_LOCKS: '0',
}

/** The keys of a repository's own config that name a program no fixed override can stop. */
export const DRIVER_PROGRAM_KEY = /^(?:diff\.external|diff\..+\.(?:textconv|command)|filter\..+\.(?:clean|smudge|process)|merge\..+\.driver|remote\..+\.(?:uploadpack|receivepack))$/

/**
 * `env` without any `GIT_*` variable, plus the overrides.
 * @example spawn('git', ['status'], { env: neutralGitEnvironment(env) })
 */
export function neutralGitEnvironment(env: Readonly<Record<string, string>>): Record<string, string> {
  const neutral: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (!name.startsWith('GIT_')) neutral[name] = value
  Object.assign(neutral, FIXED_VARIABLES)
  neutral.GIT_CONFIG_COUNT = String(OVERRIDES.length)
  OVERRIDES.forEach(([key, value], index) => {
    neutral[`GIT_CONFIG_KEY_${index}`] = key
    neutral[`GIT_CONFIG_VALUE_${index}`] = value
  })
  return neutral
}
