/** @module The project grants approvals with scope "project" made: listed, and removed one by one. */
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

  /** Later requests the rule covered ask again; throws API_ERR_RULE_NOT_FOUND for an unknown id, or one `visible` leaves out. */
  async delete(id: string, visible: (rules: ProjectRuleRecord[]) => Promise<ProjectRuleRecord[]> = (rules) => Promise.resolve(rules)): Promise<void> {
    const rules = await visible(await this.#store.rules.projectRules())
    if (!rules.some((rule) => rule.id === id)) throw new ToolexecError('API_ERR_RULE_NOT_FOUND', [id])
    await this.#store.commit((unit) => unit.rules.deleteProjectRule(id))
  }
}
