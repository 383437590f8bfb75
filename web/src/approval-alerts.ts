/**
 * @module Telling a person who looks elsewhere that an approval waits: a browser notification
 * (the Notification API, its permission asked once, on the click that turns it on) and, as an
 * option, a short tone, for each approval that arrives while the tab is hidden. The choice is
 * kept in localStorage; while it is on and the tab hidden, the queue keeps being read.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import type { PermissionRequestRecord } from '../../src/contracts/api.js'
import { summarizeInput } from './format.js'
import { POLL_MS } from './polling.js'
import { refreshPending } from './pending.js'
import { sessionHref } from './route.js'

export const ALERTS_KEY = 'toolexec.alerts'

export interface AlertSettings {
  readonly notify: boolean
  readonly sound: boolean
}

const OFF: AlertSettings = { notify: false, sound: false }

export function readAlertSettings(): AlertSettings {
  try {
    const stored = JSON.parse(localStorage.getItem(ALERTS_KEY) ?? 'null') as Partial<AlertSettings> | null
    return { notify: stored?.notify === true, sound: stored?.sound === true }
  } catch {
    return OFF
  }
}

export function useAlertSettings(): [AlertSettings, (settings: AlertSettings) => void] {
  const [settings, setSettings] = useState(readAlertSettings)
  const save = (next: AlertSettings): void => {
    localStorage.setItem(ALERTS_KEY, JSON.stringify(next))
    setSettings(next)
  }
  return [settings, save]
}

/** What the browser lets the page do: 'unsupported' without the Notification API. */
export type NotifyPermission = NotificationPermission | 'unsupported'

export function notifyPermission(): NotifyPermission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission
}

/** Asks for the permission when it was never asked; a refusal is not asked again (the browser would not show the prompt). */
export async function askNotifyPermission(): Promise<NotifyPermission> {
  const now = notifyPermission()
  if (now !== 'default') return now
  return Notification.requestPermission()
}

let audio: AudioContext | undefined

/** Made (or resumed) on the click that turns the sound on: a page may start audio only after a gesture. */
export function unlockSound(): void {
  audio ??= new AudioContext()
  void audio.resume()
}

function playTone(): void {
  if (audio === undefined) unlockSound()
  const context = audio as AudioContext
  const tone = context.createOscillator()
  const gain = context.createGain()
  tone.frequency.value = 880
  gain.gain.setValueAtTime(0.15, context.currentTime)
  gain.gain.exponentialRampToValueAtTime(0.001, context.currentTime + 0.3)
  tone.connect(gain).connect(context.destination)
  tone.start()
  tone.stop(context.currentTime + 0.3)
}

function showNotification(request: PermissionRequestRecord): void {
  const summary = summarizeInput(request.input)
  const notification = new Notification(`Approval waiting: ${request.toolName}`, {
    body: `${summary === '' ? '' : `${summary}\n`}Session ${request.sessionId}`,
    tag: request.id,
  })
  notification.onclick = () => {
    window.focus()
    location.hash = sessionHref(request.sessionId)
    notification.close()
  }
}

function alertOf(fresh: readonly PermissionRequestRecord[], settings: AlertSettings): void {
  if (settings.notify && notifyPermission() === 'granted') for (const request of fresh) showNotification(request)
  if (settings.sound) playTone()
}

/** Alerts for each request not seen before that arrives while the tab is hidden. */
export function useApprovalAlerts(pending: readonly PermissionRequestRecord[], settings: AlertSettings): void {
  const seen = useRef(new Set<string>())
  const on = settings.notify || settings.sound
  useEffect(() => {
    const fresh = pending.filter((request) => !seen.current.has(request.id))
    for (const request of fresh) seen.current.add(request.id)
    if (fresh.length > 0 && on && document.visibilityState === 'hidden') alertOf(fresh, settings)
  }, [pending, on, settings])
  // The queue's own polling rests while the tab is hidden: the time alerts are for.
  useEffect(() => {
    if (!on) return
    const timer = setInterval(() => {
      if (document.visibilityState === 'hidden') refreshPending()
    }, POLL_MS)
    return () => clearInterval(timer)
  }, [on])
}
