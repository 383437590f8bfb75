/**
 * @module The keys of the approval a person is looking at: `1` allow once, `2` for the session,
 * `3` for the project (after a confirmation), `Esc` or `d` deny (the message field first),
 * `j`/`k` the next or previous pending approval. None fires while the person types in a field,
 * nor on a card behind an open modal (the queue, the help, the token dialog).
 */
import { useLayoutEffect, useRef } from 'preact/hooks'

export interface ApprovalKeyHandlers {
  readonly allowOnce?: (() => void) | undefined
  readonly allowSession?: (() => void) | undefined
  readonly allowProject?: (() => void) | undefined
  readonly deny?: (() => void) | undefined
  readonly move?: ((step: 1 | -1) => void) | undefined
}

/** Every key the console answers to, for the `?` help. */
export const APPROVAL_KEYS: readonly (readonly [key: string, does: string])[] = [
  ['1', 'Allow once'],
  ['2', 'Allow for this session'],
  ['3', 'Allow for the project (asks to confirm the rule it adds; Enter confirms, Esc goes back)'],
  ['Esc or d', 'Deny: focus goes to the message for the model; Enter sends the denial, Shift+Enter a new line'],
  ['j', 'Next pending approval'],
  ['k', 'Previous pending approval'],
  ['?', 'Show this help'],
]

/** An input, a textarea, a select or an editable element: keys there are the person's text. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement
}

/** Whether a modal that does not hold `element` is open (the help over the queue): the keys belong to it then. */
function behindModal(element: HTMLElement): boolean {
  return [...document.querySelectorAll('dialog[open]')].some((modal) => !modal.contains(element))
}

function handlerFor(key: string, handlers: ApprovalKeyHandlers): (() => void) | undefined {
  switch (key) {
    case '1':
      return handlers.allowOnce
    case '2':
      return handlers.allowSession
    case '3':
      return handlers.allowProject
    case 'Escape':
    case 'd':
      return handlers.deny
    case 'j':
      return handlers.move === undefined ? undefined : () => handlers.move?.(1)
    case 'k':
      return handlers.move === undefined ? undefined : () => handlers.move?.(-1)
    default:
      return undefined
  }
}

/** Listens on the document while `active`; the handlers in effect are the last ones given. */
export function useApprovalKeys(element: { readonly current: HTMLElement | null }, active: boolean, handlers: ApprovalKeyHandlers): void {
  const current = useRef(handlers)
  current.current = handlers
  // Registered with the DOM commit: a key pressed once the card shows acts on it.
  useLayoutEffect(() => {
    if (!active) return
    const onKey = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return
      const own = element.current
      if (own === null || behindModal(own)) return
      const handler = handlerFor(event.key, current.current)
      if (handler === undefined) return
      // Also keeps Escape from closing the modal the card is in: here it means deny.
      event.preventDefault()
      handler()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [active, element])
}
