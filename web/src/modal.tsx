/** @module A modal `<dialog>`: focus moves into it, Escape closes it unless it must stay. */
import type { ComponentChildren } from 'preact'
import { useLayoutEffect, useRef } from 'preact/hooks'

export interface ModalProps {
  readonly testId: string
  readonly label: string
  /** Escape calls it; without it the dialog stays (the token dialog: nothing works without one). */
  readonly onClose?: (() => void) | undefined
  readonly children: ComponentChildren
}

export function Modal({ testId, label, onClose, children }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null)
  // Before the children's effects, so that one of them may move the focus further in.
  useLayoutEffect(() => {
    const dialog = ref.current
    if (dialog !== null && !dialog.open) dialog.showModal()
    return () => dialog?.close()
  }, [])
  const onCancel = (event: Event): void => {
    event.preventDefault()
    onClose?.()
  }
  return (
    <dialog ref={ref} class="modal" data-testid={testId} aria-label={label} onCancel={onCancel}>
      {children}
    </dialog>
  )
}
