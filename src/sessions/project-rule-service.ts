/** @module The project grants approvals with scope "project" made: listed, and removed one by one. */
import type { AuditActor } from '../contracts/audit.js'
import { ToolexecError } from '../contracts/errors.js'
import type { ProjectRuleRecord, Store } from '../contracts/store.js'

export class ProjectRuleService {
  readonly #store: Pick<Store, 'rules' | 'commit'>

  constructor(store: Pick<Store, 'rules' | 'commit'>) {
    this.#store = store
  }

  /** Oldest first. */
  list(): Promise<ProjectRuleRecord[]> {
    return this.#store.rules.projectRules()
  }

  /** Later requests the rule covered ask again; `by` is named in the audit log; throws API_ERR_RULE_NOT_FOUND for an unknown id, or one `visible` leaves out. */
  async delete(id: string, by: AuditActor, visible: (rules: ProjectRuleRecord[]) => Promise<ProjectRuleRecord[]> = (rules) => Promise.resolve(rules)): Promise<void> {
    const rules = await visible(await this.#store.rules.projectRules())
    const rule = rules.find((visibleRule) => visibleRule.id === id)
    if (rule === undefined) throw new ToolexecError('API_ERR_RULE_NOT_FOUND', [id])
    await this.#store.commit((unit) => {
      unit.rules.deleteProjectRule(id)
      unit.audit.append({ at: new Date().toISOString(), kind: 'rule.removed', actor: by, sessionId: null, detail: { ruleId: id, workspace: rule.workspace, rule: rule.rule } })
    })
  }
}
