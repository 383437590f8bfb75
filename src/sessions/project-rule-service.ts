/** @module The project grants approvals with scope "project" made: listed, and removed one by one. */
import { ToolexecError } from '../contracts/errors.js'
import type { ProjectRuleRecord, Store } from '../contracts/store.js'

export class ProjectRuleService {
  readonly #store: Store

  constructor(store: Store) {
    this.#store = store
  }

  /** Oldest first. */
  list(): ProjectRuleRecord[] {
    return this.#store.projectRules()
  }

  /** Later requests the rule covered ask again; throws API_ERR_RULE_NOT_FOUND for an unknown id. */
  delete(id: string): void {
    if (!this.#store.deleteProjectRule(id)) throw new ToolexecError('API_ERR_RULE_NOT_FOUND', [id])
  }
}
