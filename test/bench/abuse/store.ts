// "Nothing stored": row counts of every table. On PostgreSQL they are read beside the running
// daemon after each group; PGlite belongs to the daemon's process while it runs, so there the
// counts are read with the daemon stopped (after the fixtures and at the end) and, between
// groups, what the API lists (the merchants' orders and batches) stands in.
import { sql } from 'drizzle-orm';
import { openDatabase, pgliteDirFor } from '../../../src/db/client.ts';
import { createLogger } from '../../../src/log.ts';
import type { Stack } from './daemon.ts';
import type { Fixtures } from './fixtures.ts';
import { send } from './http-client.ts';

export type Counts = Record<string, number>;

/** Tables a refused request may still write: the rate limiter's buckets. */
const CHURN = new Set(['rate_buckets']);

async function tableCounts(url: string, pgliteDir: string | undefined): Promise<Counts> {
  const database = await openDatabase({ url, pgliteDir, poolSize: 1, log: createLogger({ level: 'silent' }) });
  try {
    const tables = (await database.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`)) as unknown as { rows?: Array<{ table_name: string }> } & Array<{ table_name: string }>;
    const names = (tables.rows ?? tables).map((t) => t.table_name).filter((t) => !CHURN.has(t));
    const counts: Counts = {};
    for (const name of names) {
      const res = (await database.db.execute(sql.raw(`select count(*)::int as n from "${name}"`))) as unknown as { rows?: Array<{ n: number }> } & Array<{ n: number }>;
      counts[name] = Number((res.rows ?? res)[0]!.n);
    }
    return counts;
  } finally {
    await database.close();
  }
}

/** Every table's rows; on PGlite only while the daemon is stopped. */
export function allTables(s: Stack): Promise<Counts> {
  return s.databaseUrl ? tableCounts(s.databaseUrl, undefined) : tableCounts('', pgliteDirFor(s.dataDir));
}

async function listed(s: Stack, path: string, bearer: string, key: string): Promise<number> {
  let total = 0;
  let cursor: string | null = null;
  do {
    const r = await send(s.base, { method: 'GET', path: `${path}?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, headers: { authorization: bearer } });
    if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
    total += (r.json![key] as unknown[]).length;
    cursor = r.json!.nextCursor as string | null;
  } while (cursor);
  return total;
}

/** What can be counted while the daemon runs: every table on PostgreSQL, the API's listings on both. */
export async function liveCounts(s: Stack, f: Fixtures): Promise<Counts> {
  const api: Counts = {
    'API: orders of the abuser': await listed(s, '/v1/orders', f.bearer, 'orders'),
    'API: orders of the neighbour': await listed(s, '/v1/orders', f.bearerB, 'orders'),
    'API: batches of the abuser': await listed(s, '/v1/batches', f.bearer, 'batches'),
  };
  return s.databaseUrl ? { ...api, ...(await tableCounts(s.databaseUrl, undefined)) } : api;
}

/** The tables whose count changed, as "table +n". */
export function changes(before: Counts, after: Counts, allowed: Counts = {}): string[] {
  const out: string[] = [];
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const delta = (after[name] ?? 0) - (before[name] ?? 0);
    if (delta !== (allowed[name] ?? 0)) out.push(`${name} ${delta >= 0 ? '+' : ''}${delta}`);
  }
  return out;
}
