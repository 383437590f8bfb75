/** @module Re-runs a load every few seconds while the tab is visible, and on demand. */
import { useCallback, useEffect, useRef } from 'preact/hooks'

export const POLL_MS = 2_000

/** Returns a function that reloads now. */
export function usePolling(load: () => Promise<void>, enabled: boolean, intervalMs: number = POLL_MS): () => void {
  const loadRef = useRef(load)
  loadRef.current = load
  const running = useRef(false)
  const run = useCallback(() => {
    if (running.current) return
    running.current = true
    void loadRef.current().finally(() => {
      running.current = false
    })
  }, [])
  useEffect(() => {
    if (!enabled) return
    run()
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') run()
    }, intervalMs)
    return () => clearInterval(timer)
  }, [enabled, intervalMs, run])
  return run
}
