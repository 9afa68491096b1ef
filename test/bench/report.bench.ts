// The recovery report (src/reports/) on a large book, on PostgreSQL: how long each of its
// statements takes over N orders (50 merchants, three currencies, a year of history), 2N
// attempts and the webhook deliveries of a third of the finished orders — for every merchant
// and for one, all time and the last 30 days — and the console's live poll.
//   npm run bench -- report [--orders 200000] [--explain]   (docs/console.md has the 1,000,000 figures)
// PostgreSQL from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); the
// bench creates its own database and drops it. --explain prints the plans of the statements
// that lean on an index.
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { openDatabase, type Db } from '../../src/db/client.ts';
import { rowsOf } from '../../src/db/queries/raw-rows.ts';
import { liveFigures, recoveryReport, type ReportOptions } from '../../src/reports/recovery.ts';
import { silentLog } from '../helpers/db.ts';

const { values: opts } = parseArgs({ options: { orders: { type: 'string', default: '200000' }, explain: { type: 'boolean', default: false } } });
const N = Number(opts.orders);
const BASE = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const DAY = 86_400_000;

async function seed(db: Db): Promise<void> {
  await db.execute(sql.raw(`insert into merchants (mid, name) select gen_random_uuid(), 'merchant ' || g from generate_series(1, 50) g`));
  await db.execute(sql.raw(`insert into webhook_endpoints (merchant_id, secret_sealed) select id, 'sealed' from merchants`));
  await db.execute(sql.raw(`
    insert into orders (merchant_id, order_id, idempotency_key, kind, status, amount, currency, card_token, card_brand, decline_code, decline_source, request, created_at, updated_at, next_attempt_at)
    select m.id, 'o' || g, gen_random_uuid(), 'MIT',
      (array['APPROVED','EXPIRED','EXPIRED','APPROVED','PENDING','CANCELLED','DECLINED','APPROVED','EXPIRED','EXPIRED'])[1 + g % 10],
      100 + g % 5000, (array['USD','EUR','GBP'])[1 + g % 3], 't' || g, (array['visa','mastercard','amex','discover'])[1 + g % 4],
      (array['51','05','14','91','54','61','NA'])[1 + g % 7], 'iso8583', '{}'::json,
      now() - (g % 365) * interval '1 day', now(), case when g % 10 = 4 then now() + (g % 30) * interval '1 day' end
    from generate_series(1, ${N}) g join (select id, row_number() over () as r from merchants) m on m.r = 1 + g % 50`));
  await db.execute(sql.raw(`
    insert into attempts (order_session_key, merchant_id, card_token, attempt_no, idempotency_key, status, amount, currency, started_at)
    select o.id, o.merchant_id, o.card_token, a, o.id || ':' || a, (array['declined','approved'])[1 + (a + length(o.order_id)) % 2], o.amount, o.currency, o.created_at + a * interval '1 day'
    from orders o cross join generate_series(1, 2) a`));
  await db.execute(sql.raw(`insert into webhook_events (id, merchant_id, order_session_key, type, payload, created_at)
    select 'msg_' || md5(o.id::text), o.merchant_id, o.id, 'order.completed', '{}'::json, o.created_at from orders o where o.status in ('APPROVED', 'EXPIRED') and random() < 0.3`));
  await db.execute(sql.raw(`insert into webhook_deliveries (event_id, endpoint_id, status)
    select e.id, w.id, case when random() < 0.001 then 'dead' when random() < 0.001 then 'pending' else 'delivered' end from webhook_events e join webhook_endpoints w on w.merchant_id = e.merchant_id`));
  await db.execute(sql.raw('analyze'));
}

async function timed(label: string, o: ReportOptions, db: Db): Promise<void> {
  await recoveryReport(db, o); // warm: the first run reads the tables into the cache
  const steps: string[] = [];
  let last = performance.now();
  const start = last;
  await recoveryReport(db, { ...o, onStep: (_d, _t, name) => { steps.push(`${name} ${Math.round(performance.now() - last)}`); last = performance.now(); } });
  console.log(`${label.padEnd(28)} ${String(Math.round(performance.now() - start)).padStart(6)} ms  (${steps.join(', ')} ms)`);
}

const name = `rescued_bench_report_${Date.now()}`;
const admin = postgres(BASE, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${name}`);
const url = new URL(BASE);
url.pathname = `/${name}`;
const database = await openDatabase({ url: url.toString(), poolSize: 4, log: silentLog });
try {
  await database.migrate();
  const db = database.db;
  const t0 = performance.now();
  await seed(db);
  const sizes = rowsOf(await db.execute(sql.raw(`select (select count(*) from orders) as orders, (select count(*) from attempts) as attempts, (select count(*) from webhook_deliveries) as deliveries`)))[0]!;
  console.log(`report on PostgreSQL: ${sizes.orders} orders, ${sizes.attempts} attempts, ${sizes.deliveries} webhook deliveries (seeded in ${Math.round((performance.now() - t0) / 1000)} s)`);
  const merchantId = String(rowsOf(await db.execute(sql.raw('select id from merchants order by id limit 1')))[0]!.id);
  const now = new Date();
  const since = new Date(now.getTime() - 30 * DAY);
  await timed('all merchants, all time', { now }, db);
  await timed('all merchants, 30 days', { now, since }, db);
  await timed('one merchant, all time', { now, merchantId }, db);
  await timed('one merchant, 30 days', { now, merchantId, since }, db);
  const start = performance.now();
  await liveFigures(db, { now });
  console.log(`${'live poll (console)'.padEnd(28)} ${String(Math.round(performance.now() - start)).padStart(6)} ms`);
  if (opts.explain) {
    const explain = async (q: string) => console.log(`\n${q}\n${rowsOf(await db.execute(sql.raw(`explain ${q}`))).map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
    await explain(`select count(*) from orders o where o.status = 'PENDING' and o.next_attempt_at is not null`);
    await explain(`select count(*) from orders o where o.status in ('SUBMITTED', 'PENDING', 'PROCESSING', 'CHALLENGE')`);
    await explain(`select d.* from webhook_endpoints e cross join lateral (select count(*) from webhook_deliveries w where w.endpoint_id = e.id and w.status in ('pending', 'delivering', 'dead')) d`);
    await explain(`select count(*) from attempts a where a.merchant_id = '${merchantId}' and a.started_at >= now() - interval '30 days'`);
    await explain(`select count(*) from orders o where o.merchant_id = '${merchantId}' and o.created_at >= now() - interval '30 days'`);
  }
} finally {
  await database.close();
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}
