// What a trial left behind, counted in the table's columns: from the database (orders,
// sandbox processor calls), the outbound folder (ack and results files), the webhook receiver
// (deliveries, signatures verified) and the gateway fakes (money taken, by order amount).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Fakes } from './fakes.ts';
import type { World } from './world.ts';

export interface Counts {
  duplicateOrders: number;
  doubleCharges: number;
  stuck: number;
  lostWebhooks: number;
  duplicateDeliveries: number;
  badFiles: number;
}
export const ZERO: Counts = { duplicateOrders: 0, doubleCharges: 0, stuck: 0, lostWebhooks: 0, duplicateDeliveries: 0, badFiles: 0 };
export const add = (a: Counts, b: Counts): Counts => Object.fromEntries(Object.keys(a).map((k) => [k, a[k as keyof Counts] + b[k as keyof Counts]])) as unknown as Counts;

export interface TrialFile {
  name: string;
  entries: number;
  /** Entries that must be accepted (all: the campaign writes valid files). */
  accepted: number;
  /** Uploaded (an ack is due), or seeded straight into the database (no ack). */
  uploaded: boolean;
}

interface OrderRow {
  id: string;
  order_id: string;
  file_name: string;
  status: string;
  status_reason: string | null;
  next_attempt_at: Date | null;
  amount: number;
}

const FINAL = new Set(['APPROVED', 'EXPIRED', 'CANCELLED', 'DECLINED']);
const EVENT: Record<string, string> = { APPROVED: 'ORDER COMPLETE', EXPIRED: 'ORDER EXPIRED', CANCELLED: 'ORDER CANCELLED' };
const parked = (o: OrderRow) => o.status === 'PENDING' && o.status_reason === 'unreconciled' && o.next_attempt_at === null;

/** The trial's orders (`o`), with their batch (`b`): the FROM and WHERE of every read of them. */
const ofTrial = (w: World, files: TrialFile[]) => w.sql`
  from orders o join batches b on b.id = o.batch_id
  where o.merchant_id = ${w.merchantId} and b.file_name in ${w.sql(files.map((f) => f.name))}`;

export async function trialOrders(w: World, files: TrialFile[]): Promise<OrderRow[]> {
  return w.sql<OrderRow[]>`select o.id, o.order_id, b.file_name, o.status, o.status_reason, o.next_attempt_at, o.amount ${ofTrial(w, files)}`;
}

/**
 * Everything settled: every order final (or parked), every file written, every final order's
 * event received, nothing left to deliver. Counted in the database: it is polled while the
 * daemon works, and loading a 100k-entry file's orders each time would take the CPU it needs.
 */
export async function settled(w: World, files: TrialFile[]): Promise<boolean> {
  if (!files.every((f) => (!f.uploaded || existsSync(join(w.outbound(), `${f.name}.ack.json`))) && existsSync(join(w.outbound(), `${f.name}.results.json`)))) return false;
  const [orders] = await w.sql<{ n: number; open: number }[]>`
    select count(*)::int as n,
      -- neither final nor parked (the parked test above, in SQL)
      count(*) filter (where o.status not in ${w.sql([...FINAL])} and not (o.status = 'PENDING' and o.status_reason = 'unreconciled' and o.next_attempt_at is null))::int as open
    ${ofTrial(w, files)}`;
  if (!orders || orders.n < files.reduce((n, f) => n + f.accepted, 0) || orders.open > 0) return false;
  const [row] = await w.sql<{ n: number }[]>`
    select count(*)::int as n from webhook_deliveries d join webhook_events e on e.id = d.event_id
    where e.merchant_id = ${w.merchantId} and d.status in ('pending', 'delivering')`;
  return row?.n === 0;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Ack and results of each file: present, whole JSON, and saying what the database says. */
function badFiles(w: World, files: TrialFile[], rows: OrderRow[], notes: string[]): number {
  let bad = 0;
  for (const f of files) {
    const ack = readJson(join(w.outbound(), `${f.name}.ack.json`)) as { counts?: { accepted?: number } } | undefined;
    if (f.uploaded && ack?.counts?.accepted !== f.accepted) {
      bad++;
      notes.push(`${f.name}: ack ${ack ? `says ${ack.counts?.accepted} accepted, expected ${f.accepted}` : 'missing or not JSON'}`);
    }
    const results = readJson(join(w.outbound(), `${f.name}.results.json`)) as { results?: { orderSessionKey: string; status: string }[]; total?: number } | undefined;
    const mine = new Map(rows.filter((o) => o.file_name === f.name).map((o) => [o.id, o.status]));
    const wrong = results?.results?.filter((r) => mine.get(r.orderSessionKey) !== r.status).length ?? 0;
    if (!results || results.total !== f.accepted || results.results?.length !== f.accepted || wrong > 0) {
      bad++;
      notes.push(`${f.name}: results ${results ? `total ${results.total}, ${wrong} records unlike the database` : 'missing or not JSON'}`);
    }
  }
  return bad;
}

/** Runs `query` over `ids` in slices: one statement takes at most 65,534 parameters, and a 100k-entry file has more orders. */
async function inSlices<T>(ids: string[], query: (slice: string[]) => Promise<T[]>, size = 10_000): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += size) out.push(...(await query(ids.slice(i, i + size))));
  return out;
}

async function doubleCharges(w: World, fakes: Fakes, rows: OrderRow[], notes: string[], chargedBefore: Map<number, number>): Promise<number> {
  const ids = rows.map((o) => o.id);
  // An order's calls and attempts all carry its id, so a slice never splits one order's rows.
  const sandbox = await inSlices(ids, (slice) => w.sql<{ reference: string; n: number }[]>`
    select reference, count(*)::int as n from processor_calls
    where operation = 'authorize' and approved and reference in ${w.sql(slice)} group by reference having count(*) > 1`);
  const approved = await inSlices(ids, (slice) => w.sql<{ order_session_key: string }[]>`
    select order_session_key from attempts where status = 'approved' and order_session_key in ${w.sql(slice)}
    group by order_session_key having count(*) > 1`);
  // The trial's own charges: amounts repeat from one trial to the next.
  const atFakes = fakes.chargesByAmount(chargedBefore);
  const fakeDoubles = rows.filter((o) => (atFakes.get(o.amount) ?? 0) > 1);
  for (const o of fakeDoubles) notes.push(`order ${o.id}: ${atFakes.get(o.amount)} charges at the gateway fake`);
  for (const s of sandbox) notes.push(`order ${s.reference}: ${s.n} approved sandbox authorizations`);
  const doubled = new Set([...sandbox.map((s) => s.reference), ...approved.map((a) => a.order_session_key), ...fakeDoubles.map((o) => o.id)]);
  return doubled.size;
}

function webhookCounts(w: World, rows: OrderRow[], notes: string[]): Pick<Counts, 'lostWebhooks' | 'duplicateDeliveries'> {
  const ids = new Set(rows.map((o) => o.id));
  const got = w.receiver.deliveries(w.webhookSecret).filter((d) => ids.has(d.orderId));
  const unverified = got.filter((d) => !d.verified).length;
  if (unverified) notes.push(`${unverified} deliveries with a bad signature`);
  const received = new Set(got.filter((d) => d.verified).map((d) => `${d.orderId} ${d.event}`));
  const lost = rows.filter((o) => EVENT[o.status] && !received.has(`${o.id} ${EVENT[o.status]}`));
  for (const o of lost.slice(0, 5)) notes.push(`order ${o.id} ${o.status}: no ${EVENT[o.status]} received`);
  const byId = new Map<string, Set<string>>();
  const idsByEvent = new Map<string, Set<string>>();
  for (const d of got) {
    byId.set(d.webhookId, (byId.get(d.webhookId) ?? new Set()).add(d.content));
    idsByEvent.set(`${d.orderId} ${d.event}`, (idsByEvent.get(`${d.orderId} ${d.event}`) ?? new Set()).add(d.webhookId));
  }
  const mixed = [...byId.values()].filter((c) => c.size > 1).length;
  const twice = [...idsByEvent.values()].reduce((n, s) => n + s.size - 1, 0);
  if (mixed) notes.push(`${mixed} webhook-ids carried different events`);
  if (twice) notes.push(`${twice} events sent under a second webhook-id`);
  return { lostWebhooks: lost.length + unverified, duplicateDeliveries: mixed + twice };
}

/** The trial's counts, and its orders parked for the operator (not a failure: the designed end of an outcome no lookup could settle). */
export async function checkTrial(w: World, fakes: Fakes, files: TrialFile[], notes: string[], chargedBefore: Map<number, number>): Promise<{ counts: Counts; parked: number }> {
  const rows = await trialOrders(w, files);
  const expected = files.reduce((n, f) => n + f.accepted, 0);
  const distinct = new Set(rows.map((o) => o.order_id)).size;
  const duplicateOrders = rows.length - distinct + Math.max(0, distinct - expected);
  const stuckRows = rows.filter((o) => !FINAL.has(o.status) && !parked(o));
  // An accepted entry that never became an order is as stuck as one that never finished.
  const missing = Math.max(0, expected - distinct);
  if (stuckRows.length) notes.push(`${stuckRows.length} orders not final, e.g. ${stuckRows.slice(0, 3).map((o) => `${o.id} ${o.status}`).join(', ')}`);
  if (missing) notes.push(`${missing} accepted entries without an order`);
  const parkedRows = rows.filter(parked);
  if (parkedRows.length) notes.push(`${parkedRows.length} orders parked for the operator, e.g. ${parkedRows.slice(0, 3).map((o) => o.id).join(', ')}`);
  const counts: Counts = {
    duplicateOrders,
    doubleCharges: await doubleCharges(w, fakes, rows, notes, chargedBefore),
    stuck: stuckRows.length + missing,
    ...webhookCounts(w, rows, notes),
    badFiles: badFiles(w, files, rows, notes),
  };
  return { counts, parked: parkedRows.length };
}
