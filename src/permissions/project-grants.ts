/** @module Allow rules granted for a workspace by approvals with `scope: "project"`. */
import { compileRule, type CommandSplitter, type CompiledRule } from './rule-matcher.js'
import type { RuleSet } from './rule-permission-service.js'

export interface ProjectRuleStore {
  projectRulesOf(workspace: string): Promise<string[]>
}

export function projectGrantRules(store: ProjectRuleStore, split: CommandSplitter): (workspace: string) => Promise<RuleSet> {
  const compiled = new Map<string, CompiledRule | null>()
  const compile = (source: string): CompiledRule | null => {
    if (!compiled.has(source)) {
      try {
        compiled.set(source, compileRule(source, 'allow', split))
      } catch {
        // A grant is written by us from a suggested rule; one that does not compile grants nothing.
        compiled.set(source, null)
      }
    }
    return compiled.get(source) ?? null
  }
  return async function grantsOf(workspace) {
    const sources = await store.projectRulesOf(workspace)
    const allow = sources.map(compile).filter((rule): rule is CompiledRule => rule !== null)
    return { deny: [], ask: [], allow }
  }
}
