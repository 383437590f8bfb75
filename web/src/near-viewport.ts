/**
 * @module Tells once when an element first comes near the viewport (one IntersectionObserver
 * for the page). A big session draws a schedule's calls only then: opening 5,000 calls draws
 * the few on screen, not all of them.
 */

/** How far outside the viewport an element counts as near: drawn before it scrolls into view. */
const NEAR_MARGIN = '1200px 0px'

const waiting = new Map<Element, () => void>()
let observer: IntersectionObserver | undefined

function shared(): IntersectionObserver {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue
        const onNear = waiting.get(entry.target)
        forget(entry.target)
        onNear?.()
      }
    },
    { rootMargin: NEAR_MARGIN },
  )
  return observer
}

/** Calls `onNear` once, when `element` first comes within NEAR_MARGIN of the viewport. */
export function whenNear(element: Element, onNear: () => void): void {
  waiting.set(element, onNear)
  shared().observe(element)
}

export function forget(element: Element): void {
  waiting.delete(element)
  observer?.unobserve(element)
}
