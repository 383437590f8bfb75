/**
 * @module Hooks from the config file, run by the function hook runner: matching hooks run in
 * parallel and report HookRun* events. A PreToolUse hook that fails falls through to the
 * rules, unless it is marked failClosed: then it denies.
 */
import type { HookDefinition, HooksConfig } from '../contracts/hook-config.js'
import type { HookEventName, HookOutput, HookRunner } from '../contracts/ports.js'
import { defaultCommandEnvironment, type CommandEnvironment } from '../processes/command-environment.js'
import { runCommandHook } from './command-hook.js'
import { createFunctionHookRunner, type FunctionHook } from './function-hook-runner.js'
import { runHttpHook } from './http-hook.js'

const EVENTS: readonly HookEventName[] = ['PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure']

export function hookName(definition: HookDefinition): string {
  const target = definition.type === 'command' ? definition.command : definition.url
  return `${definition.type}: ${target.length > 80 ? `${target.slice(0, 77)}...` : target}`
}

function toFunctionHook(event: HookEventName, matcher: string | undefined, definition: HookDefinition, environment: CommandEnvironment): FunctionHook {
  const name = hookName(definition)
  const run = (payload: Parameters<FunctionHook['run']>[0], signal: AbortSignal): Promise<HookOutput | undefined> =>
    definition.type === 'command' ? runCommandHook(definition, event, payload, signal, environment) : runHttpHook(definition, event, payload, signal)
  if (definition.failClosed !== true || event !== 'PreToolUse') return { event, matcher, name, run }
  return {
    event,
    matcher,
    name,
    run: async (payload, signal) => {
      try {
        return await run(payload, signal)
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error)
        return { permissionDecision: 'deny', reason: `PreToolUse hook ${name} failed and is marked failClosed: ${why}` }
      }
    },
  }
}

export function configHooks(config: HooksConfig, environment: CommandEnvironment = defaultCommandEnvironment()): FunctionHook[] {
  const hooks: FunctionHook[] = []
  for (const event of EVENTS) {
    for (const group of config[event] ?? []) {
      for (const definition of group.hooks) hooks.push(toFunctionHook(event, group.matcher, definition, environment))
    }
  }
  return hooks
}

/** `environment`: what command hooks get to see of the server's environment (command-environment.ts). */
export function createConfigHookRunner(config: HooksConfig, extra: readonly FunctionHook[] = [], environment?: CommandEnvironment): HookRunner {
  return createFunctionHookRunner([...configHooks(config, environment), ...extra])
}
