/**
 * @module The environment of every process the server starts for someone else: Bash
 * commands (foreground and background), command hooks and MCP stdio servers. The server's own
 * environment holds its API token and whatever secrets its operator had exported; a command
 * the model runs must see none of it. So a command gets an allow-list of harmless variables
 * taken from the server's environment, then the names the config passes through (`passEnv`),
 * then the config's fixed values (`env`). Never a `TOOLEXEC_*` variable, and never a
 * variable that holds the server's token, whatever its name. (The Bash runner adds its own
 * `TOOLEXEC_PROCESS_TAG` to the command it starts, after this; see process-tag.ts.)
 */

declare module '../contracts/tool-context.js' {
  interface ToolServices {
    /** What Bash commands see of the server's environment. */
    commandEnvironment: CommandEnvironment
  }
}

/** Variables a command may see without being named in the config. */
// SHLVL: bash given a socket as stdin (an MCP server's, a hook's) and no SHLVL takes itself for a remote shell and reads ~/.bashrc.
export const INHERITED_VARIABLES: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'TMPDIR', 'SHLVL']
const INHERITED_PATTERN = /^LC_[A-Z_]+$/
const RESERVED_PREFIX = 'TOOLEXEC_'
/** A token this long is matched inside other values too (`Bearer <token>`); a shorter one only whole. */
const MIN_TOKEN_SUBSTRING = 16

/** `env` and `passEnv` as the config file writes them, globally or per hook or MCP server. */
export interface EnvironmentSettings {
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly passEnv?: readonly string[] | undefined
}

/** Why a config's `env`/`passEnv` names something a command may never get, or undefined. */
export function environmentSettingsProblem(settings: EnvironmentSettings): string | undefined {
  const names = [...Object.keys(settings.env ?? {}), ...(settings.passEnv ?? [])]
  const reserved = names.find((name) => name.toUpperCase().startsWith(RESERVED_PREFIX))
  if (reserved !== undefined) return `${reserved}: TOOLEXEC_* variables are the server's own and are never given to commands`
  const bad = names.find((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
  return bad === undefined ? undefined : `"${bad}" is not a variable name`
}

export class CommandEnvironment {
  readonly #base: NodeJS.ProcessEnv
  readonly #settings: EnvironmentSettings
  readonly #token: string | undefined

  /**
   * @param base the server's environment (process.env)
   * @param settings the config file's global `env` and `passEnv`
   * @param token the server's API token, wherever it came from
   */
  constructor(base: NodeJS.ProcessEnv, settings: EnvironmentSettings = {}, token?: string) {
    this.#base = base
    this.#settings = settings
    this.#token = token === undefined || token === '' ? undefined : token
  }

  /**
   * The environment for one process: the allow-list, then the global settings, then `own`
   * (a hook's or an MCP server's). `own.env` wins over everything.
   * @example new CommandEnvironment(process.env).build() // { PATH, HOME, LANG, ... }
   */
  build(own: EnvironmentSettings = {}): Record<string, string> {
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(this.#base)) {
      if (value !== undefined && (INHERITED_VARIABLES.includes(name) || INHERITED_PATTERN.test(name))) env[name] = value
    }
    for (const name of [...(this.#settings.passEnv ?? []), ...(own.passEnv ?? [])]) {
      const value = this.#base[name]
      if (value !== undefined) env[name] = value
    }
    Object.assign(env, this.#settings.env ?? {}, own.env ?? {})
    for (const [name, value] of Object.entries(env)) {
      if (name.toUpperCase().startsWith(RESERVED_PREFIX) || this.#holdsToken(value)) delete env[name]
    }
    return env
  }

  #holdsToken(value: string): boolean {
    const token = this.#token
    if (token === undefined) return false
    return value === token || (token.length >= MIN_TOKEN_SUBSTRING && value.includes(token))
  }
}

/** Without a server's settings (tools used on their own, tests): the allow-list of this process's environment. */
export function defaultCommandEnvironment(): CommandEnvironment {
  return new CommandEnvironment(process.env, {}, process.env.TOOLEXEC_TOKEN)
}
