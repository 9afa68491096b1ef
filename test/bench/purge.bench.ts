// The retention purge on PostgreSQL (TEST_DATABASE_URL or DATABASE_URL), and what it costs
// the hot path, each against a baseline of the same run:
// - bulk insert of N orders (intake's COPY) with the purge's two indexes on orders, against
//   the same insert without them;
// - the purge of N final orders past orderDays in batches of retention.batchSize, against one
//   bare DELETE of the same number of rows, and the longest of its transactions (what bounds
//   how long it holds anything).
// `npm run bench -- purge [--orders N] [--batch-size N]`
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { insertOrders, type NewOrder } from '../../src/db/queries/insert-orders.ts';
import { createLogger } from '../../src/log.ts';
import { createMerchantService } from '../../src/merchants/service.ts';
import { keyRingFrom } from '../../src/vault/cipher.ts';
import { runPurge } from '../../src/retention/purge.ts';
import { ConfigSchema, type Config } from '../../src/config/index.ts';
import { Value } from '@sinclair/typebox/value';
import { createServerDatabase } from '../helpers/db.ts';
import { key32 } from '../helpers/keys.ts';
import { measure, report } from './lib.ts';

const { values } = parseArgs({ args: process.argv.slice(2).filter((a) => a !== 'purge'), options: { orders: { type: 'string', default: '50000' }, 'batch-size': { type: 'string', default: '500' } }, strict: false });
const N = Number(values.orders);
const BATCH = Number(values['batch-size']);
const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
const log = createLogger({ level: 'warn' });
const DAY = 86_400_000;
const INDEXES = {
  orders_card_idx: 'create index orders_card_idx on orders using btree (merchant_id, card_token, created_at)',
  orders_finished_idx: 'create index orders_finished_idx on orders using btree (finished_at) where finished_at is not null',
};

function rows(merchantId: string, n: number): NewOrder[] {
  return Array.from({ length: n }, (_, i) => ({
    id: randomUUID(), merchantId, orderId: `ORD-${randomUUID()}`, idempotencyKey: randomUUID(), kind: 'MIT', status: 'SUBMITTED', amount: 1000 + (i % 100),
    currency: 'USD', cardToken: `tok_bench_${i % 5000}`, cardBin: '411111', cardLast4: '1111', declineCode: '51', declineSource: 'iso8583',
    request: { orderId: i }, nextAttemptAt: new Date(), expiresAt: new Date(Date.now() + 30 * DAY),
  }));
}

async function insertAll(database: Database, list: NewOrder[]): Promise<void> {
  await database.db.transaction(async (tx) => {
    for (let i = 0; i < list.length; i += 500) await insertOrders(tx, list.slice(i, i + 500));
  });
}

/** Every order final, finished 600 days ago: all past the default orderDays. */
const ageAll = (database: Database) => database.db.execute(sql`update orders set status = 'EXPIRED', finished_at = now() - interval '600 days', next_attempt_at = null`);

async function main(): Promise<void> {
  if (!serverUrl) {
    console.log('purge bench: set TEST_DATABASE_URL (a PostgreSQL server); skipped');
    return;
  }
  const server = await createServerDatabase({ migrated: false });
  const database = await openDatabase({ url: server.url, poolSize: 4, log });
  try {
    await database.migrate();
    const merchants = createMerchantService({ db: database.db, vault: keyRingFrom({ v1: key32() }, 'v1'), mode: 'production' });
    const creds = await merchants.add({ name: 'Bench' });
    const merchantId = (await merchants.byMid(creds.mid)).id;
    console.log(`purge bench on PostgreSQL: ${N.toLocaleString('en-US')} orders, batches of ${BATCH}`);

    // 1. The insert, without and then with the purge's indexes on orders.
    for (const name of Object.keys(INDEXES)) await database.db.execute(sql.raw(`drop index ${name}`));
    const bare = await measure('COPY of orders without the purge\'s indexes', N, () => insertAll(database, rows(merchantId, N)));
    await database.db.execute(sql`truncate orders cascade`);
    for (const ddl of Object.values(INDEXES)) await database.db.execute(sql.raw(ddl));
    const indexed = await measure('COPY of orders with orders_card_idx and orders_finished_idx', N, () => insertAll(database, rows(merchantId, N)));
    console.log('insert (intake\'s hot path):');
    report(indexed, bare);

    // 2. The purge in batches, against one bare DELETE of as many rows.
    await ageAll(database);
    const settings = { ...(Value.Default(ConfigSchema.properties.retention, {}) as Config['retention']), batchSize: BATCH };
    let longestMs = 0;
    let last = process.hrtime.bigint();
    let removed = 0;
    const purge = await measure(`purge of final orders in batches of ${BATCH}`, N, async () => {
      last = process.hrtime.bigint();
      const report = await runPurge({ database, clock: { now: () => new Date() }, settings, dataDir: '/nonexistent-bench-dir', sftpRoot: '/nonexistent-bench-dir' }, {
        dryRun: false,
        onBatch: (cls) => {
          if (cls !== 'orders') return;
          const now = process.hrtime.bigint();
          longestMs = Math.max(longestMs, Number(now - last) / 1e6);
          last = now;
        },
      });
      removed = report!.classes.orders.count;
    });
    if (removed !== N) throw new Error(`the purge removed ${removed} orders of ${N}`);
    await insertAll(database, rows(merchantId, N));
    await ageAll(database);
    const del = await measure('one bare DELETE of as many final orders', N, () => database.db.execute(sql`delete from orders where finished_at < now() - interval '540 days'`));
    console.log('purge:');
    report(purge, del);
    console.log(`  longest purge transaction: ${longestMs.toFixed(1)} ms (the bare DELETE held its rows for ${del.seconds.toFixed(2)} s)`);
  } finally {
    await database.close();
    await server.drop();
  }
}

await main();
