// `rescued orders list|find` and `rescued batches list|show` in-process, on both databases:
// the same rows and figures as the API (one query module), text and JSON, merchant scoping,
// and refusals that name what is wrong.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { pgliteDirFor } from '../../../src/db/client.ts';
import { runCli } from '../../helpers/cli.ts';
import { seedListing, type Seeded } from '../../helpers/listing.ts';
import { findMerchantByMid } from '../../../src/db/queries/find-merchant.ts';
import { orderPage } from '../../../src/orders/listing.ts';

describe.each(DB_KINDS)('rescued orders list|find, batches list|show on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-cli-listing-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  let db: TestDatabase;
  let s: Seeded;
  const mids: string[] = [];
  const run = (...args: string[]) => runCli(args, env, db.database);
  const json = async (...args: string[]) => {
    const res = await run(...args, '--json');
    expect(res.status, res.stderr).toBe(0);
    return JSON.parse(res.stdout);
  };

  beforeAll(async () => {
    db = await freshDatabase(kind, { pgliteDir: pgliteDirFor(dataDir), poolSize: 2 });
    if (db.url) env.DATABASE_URL = db.url;
    const ids: string[] = [];
    for (const name of ['Acme', 'Globex']) {
      const mid = (await json('merchant', 'add', '--name', name)).mid as string;
      mids.push(mid);
      ids.push((await findMerchantByMid(db.database.db, mid))!.id);
    }
    s = await seedListing(db.database.db, ids[0]!, ids[1]!, 'cli');
  });
  afterAll(async () => {
    await db?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('orders list: a merchant\'s orders newest first, filtered, in pages larger than the API\'s', async () => {
    const all = await json('orders', 'list', '--merchant', mids[0]!);
    expect(all.map((o: { orderSessionKey: string }) => o.orderSessionKey)).toEqual(s.aOrders);
    // Every merchant: B's order was stored last, so it comes first.
    expect((await json('orders', 'list')).map((o: { orderSessionKey: string }) => o.orderSessionKey)).toEqual([s.bOrderKey, ...s.aOrders]);
    expect((await json('orders', 'list', '--merchant', mids[0]!, '--status', 'approved')).map((o: { status: string }) => o.status)).toEqual(['APPROVED', 'APPROVED', 'APPROVED']);
    const byFile = await json('orders', 'list', '--batch', 'cli.json', '--merchant', mids[0]!, '--limit', '3');
    expect(byFile.map((o: { orderSessionKey: string }) => o.orderSessionKey)).toEqual(s.aBatchOrders.slice(0, 3));
    expect(await json('orders', 'list', '--merchant', mids[0]!, '--since', s.middle.toISOString())).toHaveLength(7);
    const text = await run('orders', 'list', '--merchant', mids[0]!, '--limit', '2');
    const lines = text.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    // A header row, then the orders in aligned columns: each column starts where its title does.
    expect(lines[0]).toMatch(/^ORDER SESSION KEY +ORDER ID +STATUS +AMOUNT +CUR +CARD +CREATED +BATCH +MID$/);
    expect(lines[1]).toMatch(new RegExp(`^${s.aOrders[0]}  ORD-cli-batch-`));
    for (const title of ['ORDER ID', 'STATUS', 'CUR', 'CARD', 'CREATED', 'BATCH', 'MID']) {
      const at = lines[0]!.indexOf(title);
      for (const row of lines.slice(1, 3)) expect(row[at - 1], `${title} in ${row}`).toBe(' ');
      for (const row of lines.slice(1, 3)) expect(row[at], `${title} in ${row}`).not.toBe(' ');
    }
    // Amounts are right-aligned under AMOUNT's last letter.
    const amountEnd = lines[0]!.indexOf('AMOUNT') + 'AMOUNT'.length;
    for (const row of lines.slice(1, 3)) expect(row.slice(0, amountEnd)).toMatch(/\d\.\d\d$/);
    expect(text.stdout).toContain('(more orders: raise --limit');
    expect(text.stdout).not.toContain('tok_listing');
  });

  it('pages across every merchant by cursor, none skipped or repeated', async () => {
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await orderPage(db.database.db, undefined, { limit: 2, ...(cursor ? { cursor } : {}) });
      keys.push(...page.orders.map((o) => o.id));
      expect(page.orders.every((o) => o.createdAt instanceof Date && typeof o.mid === 'string')).toBe(true);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(keys).toEqual([s.bOrderKey, ...s.aOrders]);
  });

  it('orders find: by orderId within a merchant, or one per merchant that has it; none is an error', async () => {
    const both = await json('orders', 'find', s.sharedOrderId);
    expect(both.map((o: { mid: string }) => o.mid).sort()).toEqual([...mids].sort());
    const mine = await json('orders', 'find', s.sharedOrderId, '--merchant', mids[1]!);
    expect(mine.map((o: { orderSessionKey: string }) => o.orderSessionKey)).toEqual([s.bOrderKey]);
    // The flag of earlier releases still finds it.
    expect(await json('orders', 'find', '--order-id', s.sharedOrderId, '--merchant', mids[1]!)).toEqual(mine);
    const text = await run('orders', 'find', 'ORD-cli-batch-3');
    expect(text.stdout).toMatch(new RegExp(`^ORDER SESSION KEY .*\\n${s.aBatchOrders[2]}  ORD-cli-batch-3  PENDING +10\\.02  USD  .+  ${s.aBatchId.slice(0, 8)}#3  ${mids[0]}\\n$`));
    const missing = await run('orders', 'find');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('orders find needs the orderId');
    // Another merchant's orderId, an unknown one: not found, exit 1.
    for (const args of [['ORD-cli-batch-3', '--merchant', mids[1]!], ['ORD-nobody']]) {
      const res = await run('orders', 'find', ...args);
      expect(res.status, args.join(' ')).toBe(1);
      expect(res.stderr).toContain('No order with orderId');
    }
  });

  it('batches list and show: the ack\'s counts, the orders by state, recovered amounts, files, progress', async () => {
    const list = await run('batches', 'list', '--merchant', mids[0]!);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toContain(`${s.progressBatchId}  cli-big.json  ingesting 0% (0 of 1000 entries)`);
    expect(lines[1]).toContain(`${s.aBatchId}  cli.json  partially_accepted  entries 9  accepted 7  rejected 2`);
    expect(lines).toHaveLength(2);
    expect((await json('batches', 'list')).length).toBe(3);
    const shown = await json('batches', 'show', 'cli.json', '--merchant', mids[0]!);
    expect(shown).toMatchObject({ batchId: s.aBatchId, entries: 9, accepted: 7, rejected: 2, orders: { pending: 3, approved: 2, expired: 1, cancelled: 1 }, recovered: [{ currency: 'EUR', amount: 1001 }, { currency: 'USD', amount: 1000 }], ackFile: 'cli.json.ack.json', resultsFile: null });
    expect(await json('batches', 'show', s.aBatchId)).toEqual(shown);
    const text = (await run('batches', 'show', s.aBatchId)).stdout;
    expect(text).toContain('orders:    pending 3 · approved 2 · expired 1 · cancelled 1');
    expect(text).toContain('recovered: 10.01 EUR, 10.00 USD');
    expect(text).toContain('ack:       outbound/cli.json.ack.json');
    expect(text).toContain('results:   when every order is final');
    expect((await run('batches', 'show', 'cli-big.json')).stdout).toContain('progress:  0 of 1000 entries (0%)');
    // Merchant B's file of the same name, and A's batch through B: scoped.
    expect((await json('batches', 'show', 'cli.json', '--merchant', mids[1]!)).batchId).toBe(s.bBatchId);
    const foreign = await run('batches', 'show', s.aBatchId, '--merchant', mids[1]!);
    expect(foreign.status).toBe(1);
    expect(foreign.stderr).toContain(`No batch ${s.aBatchId} of merchant ${mids[1]}`);
  });

  it('refuses bad input, naming it', async () => {
    const status = await run('orders', 'list', '--status', 'LOST');
    expect(status.status).toBe(1);
    expect(status.stderr).toContain('status must be one of');
    expect((await run('orders', 'list', '--limit', '0')).stderr).toContain('--limit');
    expect((await run('orders', 'list', '--merchant', '00000000-0000-4000-8000-000000000000')).stderr).toContain('No merchant');
    expect((await run('orders', 'list', '--batch', 'nothing.json')).stderr).toContain('No batch nothing.json');
    expect((await run('orders', 'find')).status).not.toBe(0);
    for (const cmd of [['orders', 'list'], ['orders', 'find'], ['batches', 'list'], ['batches', 'show']]) {
      const help = await run(...cmd, '--help');
      expect(help.status, cmd.join(' ')).toBe(0);
      expect(help.stdout).toContain('Usage: rescued');
    }
  });
});
