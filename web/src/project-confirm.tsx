/**
 * @module "Allow for the project", confirmed: the rules it adds, by name, and for a Bash command
 * the choices the server offers (this command, its prefix, each part), each shown as the rules
 * it adds. A project rule outlives the session and lets later calls run unasked: it is added
 * only once its text was seen.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { RuleChoice } from '../../src/contracts/events.js'

const CHOICE_TEXT: Record<RuleChoice['kind'], string> = {
  exact: 'Only this',
  prefix: 'Commands that start the same way',
  segments: 'Each part of it, exactly',
}

interface ProjectConfirmProps {
  readonly choices: readonly RuleChoice[]
  readonly busy: boolean
  readonly onConfirm: (choice: RuleChoice) => void
  readonly onCancel: () => void
}

function ChoiceList({ choices, chosen, onChoose }: { readonly choices: readonly RuleChoice[]; readonly chosen: number; readonly onChoose: (index: number) => void }) {
  return (
    <fieldset class="rule-choices" data-testid="rule-choices">
      <legend>Which rules to add</legend>
      {choices.map((choice, index) => (
        <label key={choice.kind} class="rule-choice">
          <input type="radio" name="rule-choice" data-testid={`rule-choice-${choice.kind}`} checked={index === chosen} onChange={() => onChoose(index)} />
          <span>
            {CHOICE_TEXT[choice.kind]}:{' '}
            {choice.rules.map((rule) => (
              <code key={rule} class="rule-chip">
                {rule}
              </code>
            ))}
          </span>
        </label>
      ))}
    </fieldset>
  )
}

export function ProjectConfirm({ choices, busy, onConfirm, onCancel }: ProjectConfirmProps) {
  const [chosen, setChosen] = useState(0)
  const confirm = useRef<HTMLButtonElement>(null)
  useEffect(() => confirm.current?.focus(), [])
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    onCancel()
  }
  const choice = choices[chosen] ?? choices[0]
  if (choice === undefined) return null
  const plural = choice.rules.length > 1
  return (
    <div class="confirm" role="group" aria-labelledby="project-confirm-text" data-testid="project-confirm" onKeyDown={onKeyDown}>
      {choices.length > 1 ? <ChoiceList choices={choices} chosen={chosen} onChoose={setChosen} /> : null}
      <p id="project-confirm-text">
        Add the project {plural ? 'rules' : 'rule'} <code data-testid="project-confirm-rule">{choice.rules.join(', ')}</code>? Later calls {plural ? 'they match' : 'it matches'} in this workspace run
        without asking, until the {plural ? 'rules are' : 'rule is'} deleted on the Rules page.
      </p>
      <div class="actions">
        <button type="button" ref={confirm} class="warning" data-testid="approve-project-confirm" disabled={busy} onClick={() => onConfirm(choice)}>
          Add {plural ? 'the rules' : 'the rule'} and allow
        </button>
        <button type="button" class="secondary" data-testid="approve-project-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  )
}
