/**
 * @module What of the sandbox's own /proc is made read-only or empty: the kernel's settings
 * (/proc/sys: core_pattern, panic, drop_caches, …) and the files that act on the kernel
 * (sysrq-trigger, irq, bus, fs) read-only, as Docker does; what tells of the host's kernel
 * memory, keys and timers empty. sysctl checks permission by the global uid only, so a user
 * namespace alone would leave them writable to a command that is host root; a read-only
 * mount holds whatever the uid. /sys is never in the sandbox at all.
 */
import { lstatSync } from 'node:fs'

const READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs']
const EMPTIED_FILES = ['/proc/kcore', '/proc/keys', '/proc/key-users', '/proc/kallsyms', '/proc/kmsg', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/proc/latency_stats']
const EMPTIED_DIRS = ['/proc/acpi', '/proc/asound', '/proc/scsi']

function kind(file: string): 'dir' | 'file' | undefined {
  try {
    return lstatSync(file).isDirectory() ? 'dir' : 'file'
  } catch {
    return undefined
  }
}

/** bwrap options that follow `--proc /proc`; which entries exist is the host's /proc's say. */
export function kernelKnobArgs(): string[] {
  const args: string[] = []
  for (const entry of READ_ONLY) if (kind(entry) !== undefined) args.push('--ro-bind', entry, entry)
  for (const entry of EMPTIED_FILES) if (kind(entry) === 'file') args.push('--ro-bind', '/dev/null', entry)
  for (const entry of EMPTIED_DIRS) if (kind(entry) === 'dir') args.push('--tmpfs', entry, '--remount-ro', entry)
  return args
}
