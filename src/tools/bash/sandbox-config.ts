/**
 * @module Sandbox settings as configured: the config file's `sandbox` section, checked at
 * start, and a session's own (POST /sessions `sandbox`), added to it: the session's paths
 * join the file's, and its `network`, when given, wins.
 */
import { Value } from '@sinclair/typebox/value'
import { ToolexecError } from '../../contracts/errors.js'
import { SandboxSettingsSchema, type SandboxSettingsBody } from '../../contracts/sandbox.js'
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from './sandbox.js'

/**
 * The `sandbox` section of the config file, with defaults.
 * @throws ToolexecError CONF_ERR_SANDBOX naming the file and what is wrong
 */
export function parseSandboxConfig(fileConfig: Readonly<Record<string, unknown>>, file: string): SandboxSettings {
  const section = fileConfig['sandbox']
  if (section === undefined) return DEFAULT_SANDBOX_SETTINGS
  if (!Value.Check(SandboxSettingsSchema, section)) {
    const first = Value.Errors(SandboxSettingsSchema, section).First()
    const reason = first === undefined ? 'invalid' : `${first.path || '/'} ${first.message}`
    throw new ToolexecError('CONF_ERR_SANDBOX', [file, reason], { context: { file, reason } })
  }
  return withSession(DEFAULT_SANDBOX_SETTINGS, section)
}

/** `base` with a session's own settings added. */
export function withSession(base: SandboxSettings, session: SandboxSettingsBody | undefined): SandboxSettings {
  if (session === undefined) return base
  return {
    readOnlyPaths: [...base.readOnlyPaths, ...(session.readOnlyPaths ?? [])],
    writablePaths: [...base.writablePaths, ...(session.writablePaths ?? [])],
    network: session.network ?? base.network,
  }
}
