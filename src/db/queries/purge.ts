// The purge's statements (src/retention/), one class of data each. Every delete takes at
// most `limit` rows, found through an index (orders_finished_idx, webhook_events_merchant_idx,
// transmits_merchant_idx, batches' primary key), so each batch is a short transaction whatever
// the size of the table; the count of each class answers `rescued purge --dry-run` with
// the same predicate the delete uses.
import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { selectRows } from './claim-orders.ts';
import { uuidList } from './raw-rows.ts';

const FINAL = sql.raw(`('APPROVED', 'DECLINED', 'EXPIRED', 'CANCELLED')`);
const UNSENT = sql.raw(`('pending', 'delivering')`);
const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

async function count(db: Tx, query: SQL): Promise<number> {
  const [row] = await selectRows(db, sql`select count(*)::int as n from (${query}) as q`);
  return Number(row?.n ?? 0);
}

/** Runs a delete (a data-modifying statement must stand at the top level) and counts its rows. */
async function deleted(db: Tx, del: SQL): Promise<number> {
  const [row] = await selectRows(db, sql`with d as (${del} returning 1) select count(*)::int as n from d`);
  return Number(row?.n ?? 0);
}

/**
 * A final order the purge may remove: finished before the cut-off, no attempt still in
 * flight or waiting for its void, no webhook still to be delivered (a disabled endpoint's
 * deliveries wait for `webhooks enable`, and nothing is dropped meanwhile).
 */
const orderPurgeable = (o: SQL, cut: Date) => sql`${o}.finished_at < ${ts(cut)} and ${o}.status in ${FINAL}
  and not exists (select 1 from attempts a where a.order_session_key = ${o}.id
    and (a.status = 'in_flight' or (a.status = 'approved' and a.reason = 'to_be_voided')))
  and not exists (select 1 from webhook_events e join webhook_deliveries d on d.event_id = e.id
    where e.order_session_key = ${o}.id and d.status in ${UNSENT})`;

/** An event whose every delivery is delivered or dead. */
const eventSettled = (e: SQL) => sql`not exists (select 1 from webhook_deliveries d where d.event_id = ${e}.id and d.status in ${UNSENT})`;

/**
 * Removes events (ids) with their deliveries and the deliveries' attempts; returns [events,
 * deliveries]. One statement: the foreign keys are checked at its end, when all three are gone.
 */
async function deleteEvents(tx: Tx, events: SQL): Promise<[number, number]> {
  const [row] = await selectRows(
    tx,
    sql`with ev as (${events}),
      dl as (select id from webhook_deliveries where event_id in (select id from ev)),
      wa as (delete from webhook_attempts where delivery_id in (select id from dl) returning 1),
      dd as (delete from webhook_deliveries where id in (select id from dl) returning 1),
      de as (delete from webhook_events where id in (select id from ev) returning 1)
    select (select count(*) from de)::int as events, (select count(*) from dd)::int as deliveries`,
  );
  return [Number(row?.events ?? 0), Number(row?.deliveries ?? 0)];
}

export interface OrdersPurged {
  orders: number;
  attempts: number;
  events: number;
  deliveries: number;
}

/** One batch of purgeable orders with everything that names them (attempts, refunds, processor records, events). */
export async function purgeOrders(tx: Tx, cut: Date, limit: number): Promise<OrdersPurged> {
  const picked = await selectRows(tx, sql`select o.id from orders o where ${orderPurgeable(sql`o`, cut)} order by o.finished_at limit ${limit} for update skip locked`);
  const ids = picked.map((r) => r.id as string);
  if (ids.length === 0) return { orders: 0, attempts: 0, events: 0, deliveries: 0 };
  const list = uuidList(ids);
  const [events, deliveries] = await deleteEvents(tx, sql`select id from webhook_events where order_session_key in ${list}`);
  const attempts = await deleted(tx, sql`delete from attempts where order_session_key in ${list}`);
  await deleted(tx, sql`delete from refunds where order_session_key in ${list}`);
  await deleted(tx, sql`delete from processor_calls where reference in (select x from json_array_elements_text(${JSON.stringify(ids)}::json) as x)`);
  const orders = await deleted(tx, sql`delete from orders where id in ${list}`);
  return { orders, attempts, events, deliveries };
}

export async function countPurgeableOrders(db: Tx, orderCut: Date, webhookCut: Date): Promise<OrdersPurged> {
  const doomed = sql`select o.id from orders o where ${orderPurgeable(sql`o`, orderCut)}`;
  const events = sql`select e.id from webhook_events e where (e.created_at < ${ts(webhookCut)} and ${eventSettled(sql`e`)}) or e.order_session_key in (${doomed})`;
  return {
    orders: await count(db, doomed),
    attempts: await count(db, sql`select 1 from attempts where order_session_key in (${doomed})`),
    events: await count(db, events),
    deliveries: await count(db, sql`select 1 from webhook_deliveries where event_id in (${events})`),
  };
}

export async function merchantIds(db: Tx): Promise<string[]> {
  return (await selectRows(db, sql`select id from merchants order by id`)).map((r) => r.id as string);
}

/** One batch of a merchant's settled webhook events created before the cut-off; returns [events, deliveries]. */
export async function purgeEvents(tx: Tx, merchantId: string, cut: Date, limit: number): Promise<[number, number]> {
  return deleteEvents(
    tx,
    sql`select e.id from webhook_events e where e.merchant_id = ${merchantId} and e.created_at < ${ts(cut)} and ${eventSettled(sql`e`)}
      order by e.created_at limit ${limit} for update skip locked`,
  );
}

/** One batch of a merchant's transmit records created before the cut-off. */
export async function purgeTransmits(tx: Tx, merchantId: string, cut: Date, limit: number): Promise<number> {
  return deleted(tx, sql`delete from transmits where id in (select id from transmits where merchant_id = ${merchantId} and created_at < ${ts(cut)} limit ${limit} for update skip locked)`);
}

export const countTransmits = (db: Tx, cut: Date) => count(db, sql`select 1 from transmits where created_at < ${ts(cut)}`);

/**
 * A batch received before the cut-off whose orders are all gone (a rejected file has none);
 * never one still `ingesting` (its file is in inbound/, and its ingest resumes on this row).
 */
const batchEmpty = (cut: Date) => sql`b.received_at < ${ts(cut)} and b.status <> 'ingesting' and not exists (select 1 from orders o where o.batch_id = b.id)`;

export async function purgeBatches(tx: Tx, cut: Date, limit: number): Promise<number> {
  return deleted(tx, sql`delete from batches where id in (select b.id from batches b where ${batchEmpty(cut)} limit ${limit} for update skip locked)`);
}

/** Batches the purge will remove once the orders of `orderCut` are gone. */
export const countPurgeableBatches = (db: Tx, cut: Date) =>
  count(db, sql`select 1 from batches b where b.received_at < ${ts(cut)} and b.status <> 'ingesting'
    and not exists (select 1 from orders o where o.batch_id = b.id and not (${orderPurgeable(sql`o`, cut)}))`);

/** Ingest starts of files that never ended (quarantined, or gone from inbound/) before the cut-off: a handful of rows. */
export async function purgeIntakeStarts(tx: Tx, cut: Date, dryRun: boolean): Promise<number> {
  const old = sql`first_started_at < ${ts(cut)}`;
  if (dryRun) return count(tx, sql`select 1 from intake_starts where ${old}`);
  return deleted(tx, sql`delete from intake_starts where ${old}`);
}
