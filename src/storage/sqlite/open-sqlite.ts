/**
 * @module The embedded SQLite backend as the runtime takes it: the database file opened
 * (checked, migrated), its WAL checkpointed off the event loop (whose hold on commits is the
 * commit gate), and its damage told by DatabaseHealth.
 */
import type { OpenedStore, StorageTrouble } from '../../contracts/store.js'
import { openDatabase } from './database.js'
import { DatabaseHealth } from './database-health.js'
import { SoloCluster } from '../solo-cluster.js'
import { settled } from './settled.js'
import { SqliteStore } from './sqlite-store.js'
import { startWalCheckpointer } from './wal-checkpointer.js'

export function openSqliteStore(file: string): OpenedStore {
  const db = openDatabase(file)
  let checkpointer
  try {
    checkpointer = startWalCheckpointer(db)
  } catch (error) {
    db.close()
    throw error
  }
  const { writeGate, stop } = checkpointer
  const health = new DatabaseHealth(db)
  return {
    store: new SqliteStore(db),
    backend: 'sqlite',
    cluster: new SoloCluster(),
    fence: () => undefined,
    commitGate: writeGate,
    trouble: () => settled(() => troubleOf(health)),
    noteFailure: (error) => health.note(error),
    close: () =>
      settled(() => {
        stop()
        db.close()
      }),
  }
}

function troubleOf(health: DatabaseHealth): StorageTrouble | undefined {
  const reason = health.damage()
  return reason === undefined ? undefined : { code: 'API_ERR_STORAGE_CORRUPT', reason }
}
