// HTTP idempotency records (DESIGN.md §2): claim a key for a request, finish it with the
// answer, or release it when the request failed in a way a retry may fix.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { idempotencyRecords } from '../schema.ts';
import { rowsOf } from './raw-rows.ts';

export interface ClaimInput {
  merchantId: string;
  key: string;
  route: string;
  requestHash: string;
  now: Date;
  /** Records past this are replaced by a new first request. */
  expiresAt: Date;
  /** An in-flight record created before this was abandoned (its instance died): the same body may take it over. */
  staleBefore: Date;
  /** Also tell whether this orderId is already used by one of the merchant's orders. */
  orderId?: string;
}

export type Claim =
  | { kind: 'claimed'; orderIdTaken: boolean }
  | { kind: 'replay'; statusCode: number; response: unknown }
  | { kind: 'mismatch' }
  | { kind: 'in_flight' };

/**
 * One statement: insert the in-flight record, or take over an expired or abandoned one; when
 * neither, read the record that holds the key. The orderId check rides along so a fresh
 * evaluate costs one round trip before its decision.
 *
 * The claim's commit does not wait for its WAL flush (synchronous_commit off for this
 * statement's transaction only). The request's later, ordinary commit flushes the WAL up to
 * itself, claim included, before anyone is answered; a crash before that loses only the claim
 * of a request that was never answered, which a retry may run again (the derived attempt key
 * keeps the processor from charging twice).
 */
export async function claimIdempotency(db: Db, c: ClaimInput): Promise<Claim> {
  const t = idempotencyRecords;
  for (let tries = 0; tries < 3; tries++) {
    const result = await db.execute(sql`
      with lazy as (select set_config('synchronous_commit', 'off', true)),
      ins as (
        insert into ${t} (merchant_id, key, route, request_hash, state, created_at, expires_at)
        select ${c.merchantId}::uuid, ${c.key}, ${c.route}, ${c.requestHash}, 'in_flight', ${c.now.toISOString()}::timestamptz, ${c.expiresAt.toISOString()}::timestamptz from lazy
        on conflict (merchant_id, key) do update set route = excluded.route, request_hash = excluded.request_hash, state = 'in_flight',
          status_code = null, response = null, created_at = excluded.created_at, expires_at = excluded.expires_at
        where ${t}.expires_at < ${c.now.toISOString()}
          or (${t}.state = 'in_flight' and ${t}.created_at < ${c.staleBefore.toISOString()} and ${t}.request_hash = excluded.request_hash)
        returning 1
      )
      select true as claimed, null as route, null as hash, null as state, null::int as status, null::json as response,
        ${c.orderId === undefined ? sql`false` : sql`exists (select 1 from orders where merchant_id = ${c.merchantId} and order_id = ${c.orderId})`} as taken
      from ins
      union all
      select false, route, request_hash, state, status_code, response, false
      from ${t} where merchant_id = ${c.merchantId} and key = ${c.key} and not exists (select 1 from ins)`);
    const [row] = rowsOf(result);
    // Empty: another request inserted the key after this statement's snapshot; read again.
    if (!row) continue;
    if (row.claimed === true) return { kind: 'claimed', orderIdTaken: row.taken === true };
    if (row.route !== c.route || row.hash !== c.requestHash) return { kind: 'mismatch' };
    if (row.state !== 'done') return { kind: 'in_flight' };
    const response = typeof row.response === 'string' ? JSON.parse(row.response) : row.response;
    return { kind: 'replay', statusCode: Number(row.status), response };
  }
  return { kind: 'in_flight' };
}

export async function finishIdempotency(db: Db, merchantId: string, key: string, statusCode: number, response: unknown): Promise<void> {
  await db
    .update(idempotencyRecords)
    .set({ state: 'done', statusCode, response })
    .where(and(eq(idempotencyRecords.merchantId, merchantId), eq(idempotencyRecords.key, key)));
}

/** Forgets an in-flight key, so a retry of a request that failed for a passing reason runs again. */
export async function releaseIdempotency(db: Db, merchantId: string, key: string): Promise<void> {
  await db
    .delete(idempotencyRecords)
    .where(and(eq(idempotencyRecords.merchantId, merchantId), eq(idempotencyRecords.key, key), eq(idempotencyRecords.state, 'in_flight')));
}
