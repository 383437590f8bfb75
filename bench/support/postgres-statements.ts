/**
 * Where PostgreSQL's time goes over a bench's measured window (BENCH_PG_STATEMENTS=1): the
 * top statements by total execution time from pg_stat_statements (preloaded by the settings
 * below), WAL written (pg_stat_wal), MultiXact pages touched (pg_stat_slru) and the database's
 * commits and row counts (pg_stat_database), each per bench call as well.
 */
import pg from 'pg'

/** Server settings that load pg_stat_statements, nested statements (a function's own) counted too. */
export const STATEMENT_SETTINGS = ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.track_planning=on']

const TOP = 15
const QUERY_CHARS = 110

type Counters = Record<string, number>

const COUNTERS_SQL = `SELECT
    (SELECT wal_records FROM pg_stat_wal) AS wal_records, (SELECT wal_fpi FROM pg_stat_wal) AS wal_fpi, (SELECT wal_bytes FROM pg_stat_wal) AS wal_bytes,
    (SELECT sum(blks_zeroed + blks_hit + blks_read + blks_written) FROM pg_stat_slru WHERE name LIKE 'MultiXact%') AS multixact_pages,
    xact_commit, xact_rollback, blks_hit, blks_read, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted
  FROM pg_stat_database WHERE datname = current_database()`

/**
 * Statements sent by the clients (a function's own statements are in its call's time), those
 * that differ only in how many rows they carry counted as one: grouped by their first words.
 */
const TOP_SQL = `WITH sent AS (
    SELECT calls, total_exec_time, total_plan_time, rows, wal_records, wal_bytes, left(regexp_replace(query, '\\s+', ' ', 'g'), ${QUERY_CHARS}) AS query FROM pg_stat_statements
    WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%'
  ), grouped AS (
    SELECT sum(calls)::bigint::text AS calls, sum(total_exec_time) AS total_exec_time, sum(total_plan_time) AS total_plan_time, sum(rows)::bigint::text AS rows,
      sum(wal_records)::bigint::text AS wal_records, sum(wal_bytes)::bigint::text AS wal_bytes,
      regexp_replace(query, '(VALUES|ARRAY\\[|FROM \\(VALUES).*$', '\\1 ...') AS query
    FROM sent GROUP BY 7
  )
  SELECT * FROM (
    SELECT * FROM grouped UNION ALL
    SELECT sum(calls::bigint)::text, sum(total_exec_time), sum(total_plan_time), sum(rows::bigint)::text, sum(wal_records::bigint)::text, sum(wal_bytes::bigint)::text, '(all statements sent)' FROM grouped
  ) t ORDER BY total_exec_time + total_plan_time DESC LIMIT ${TOP + 1}`

export interface StatementsProbe {
  /** Forgets what came before: the window starts now. */
  start(): Promise<void>
  /** Prints the window's figures, per bench call too. */
  report(calls: number): Promise<void>
  close(): Promise<void>
}

export async function statementsProbe(url: string): Promise<StatementsProbe> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
  const counters = async (): Promise<Counters> => {
    // Statistics are sent to the shared counters at most every second; forces this session's view to be fresh.
    await client.query('SELECT pg_stat_clear_snapshot()')
    const [row] = (await client.query<Record<string, string>>(COUNTERS_SQL)).rows
    return Object.fromEntries(Object.entries(row ?? {}).map(([key, value]) => [key, Number(value)]))
  }
  let before: Counters = {}
  return {
    async start() {
      await client.query('SELECT pg_stat_statements_reset()')
      before = await counters()
    },
    async report(calls) {
      await new Promise((resolve) => setTimeout(resolve, 1_100))
      const after = await counters()
      const top = (await client.query<{ calls: string; total_exec_time: number; total_plan_time: number; rows: string; wal_records: string; wal_bytes: string; query: string }>(TOP_SQL)).rows
      console.log(`         top statements by time (exec + plan) over ${calls} calls:`)
      console.log(
        `         ${'calls'.padStart(8)} ${'ms'.padStart(8)} ${'µs/call'.padStart(8)} ${'plan µs'.padStart(8)} ${'rows'.padStart(8)} ${'WAL rec'.padStart(8)} ${'WAL B'.padStart(8)}  query (µs, WAL per bench call)`,
      )
      for (const row of top) {
        const ms = row.total_exec_time + row.total_plan_time
        const text = row.query.replace(/\s+/g, ' ').slice(0, QUERY_CHARS)
        console.log(
          `         ${row.calls.padStart(8)} ${ms.toFixed(0).padStart(8)} ${((ms / calls) * 1000).toFixed(1).padStart(8)} ${((row.total_plan_time / calls) * 1000).toFixed(1).padStart(8)} ${row.rows.padStart(8)} ${(Number(row.wal_records) / calls).toFixed(1).padStart(8)} ${(Number(row.wal_bytes) / calls).toFixed(0).padStart(8)}  ${text}`,
        )
      }
      const per = (key: string): string => (((after[key] ?? 0) - (before[key] ?? 0)) / calls).toFixed(2)
      console.log(`         per call: WAL ${per('wal_bytes')} bytes in ${per('wal_records')} records (${per('wal_fpi')} full pages), MultiXact pages ${per('multixact_pages')}`)
      console.log(
        `         per call: commits ${per('xact_commit')}, rollbacks ${per('xact_rollback')}, buffers hit ${per('blks_hit')}, read ${per('blks_read')}; rows returned ${per('tup_returned')}, fetched ${per('tup_fetched')}, inserted ${per('tup_inserted')}, updated ${per('tup_updated')}, deleted ${per('tup_deleted')}`,
      )
    },
    close: () => client.end(),
  }
}
