/** @module The `?` help: every key the console answers to, in a modal; `?` opens it from any page. */
import { useEffect } from 'preact/hooks'
import { APPROVAL_KEYS, isTyping } from './approval-keys.js'
import { Modal } from './modal.js'

/** Calls `onOpen` on `?` outside a field, on a page or over the queue, not over another modal. */
export function useHelpKey(onOpen: () => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== '?' || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return
      if (document.querySelector('dialog[open]:not([data-testid="queue-dialog"])') !== null) return
      event.preventDefault()
      onOpen()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [onOpen])
}

export function KeyHelp({ onClose }: { readonly onClose: () => void }) {
  return (
    <Modal testId="key-help" label="Keyboard shortcuts" onClose={onClose}>
      <h2>Keyboard shortcuts</h2>
      <p class="hint">On a pending approval (the queue's or a session's), not while typing in a field.</p>
      <dl class="keys" data-testid="key-list">
        {APPROVAL_KEYS.map(([key, does]) => (
          <div key={key} data-testid="key-entry">
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{does}</dd>
          </div>
        ))}
      </dl>
      <div class="actions">
        <button type="button" data-testid="key-help-close" onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  )
}
