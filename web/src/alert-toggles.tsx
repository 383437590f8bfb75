/** @module The header's switches for approval alerts: a bell (browser notifications) and a tone. */
import { useState } from 'preact/hooks'
import { askNotifyPermission, notifyPermission, unlockSound, type AlertSettings } from './approval-alerts.js'

const REFUSED: Record<string, string> = {
  denied: 'The browser blocks notifications for this page: allow them in its site settings.',
  default: 'The browser did not grant notifications.',
  unsupported: 'This browser has no notifications.',
}

function BellIcon({ off }: { readonly off: boolean }) {
  return (
    <svg aria-hidden="true" width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
      {off ? <path d="M3 3l18 18" /> : null}
    </svg>
  )
}

export function AlertToggles({ settings, onChange }: { readonly settings: AlertSettings; readonly onChange: (settings: AlertSettings) => void }) {
  const [refusal, setRefusal] = useState<string | undefined>(undefined)
  const notifyOn = settings.notify && notifyPermission() === 'granted'
  const toggleNotify = async (): Promise<void> => {
    if (notifyOn) {
      onChange({ ...settings, notify: false })
      return
    }
    const permission = await askNotifyPermission()
    setRefusal(permission === 'granted' ? undefined : REFUSED[permission])
    if (permission === 'granted') onChange({ ...settings, notify: true })
  }
  const toggleSound = (): void => {
    if (!settings.sound) unlockSound()
    onChange({ ...settings, sound: !settings.sound })
  }
  return (
    <span class="alert-toggles">
      <button
        type="button"
        class="secondary alert-toggle"
        data-testid="notify-toggle"
        aria-pressed={notifyOn}
        aria-label="Notify me of new approvals while this tab is hidden"
        title={refusal ?? (notifyOn ? 'Notifications on: click to turn them off' : 'Notify me of new approvals while this tab is hidden')}
        onClick={() => void toggleNotify()}
      >
        <BellIcon off={!notifyOn} />
      </button>
      <button
        type="button"
        class="secondary alert-toggle"
        data-testid="sound-toggle"
        aria-pressed={settings.sound}
        aria-label="Play a sound for new approvals while this tab is hidden"
        title={settings.sound ? 'Sound on: click to turn it off' : 'Play a sound for new approvals while this tab is hidden'}
        onClick={toggleSound}
      >
        <span aria-hidden="true">♪</span>
      </button>
      {refusal === undefined ? null : (
        <span class="alert-refusal" role="status" data-testid="notify-refusal">
          {refusal}
        </span>
      )}
    </span>
  )
}
