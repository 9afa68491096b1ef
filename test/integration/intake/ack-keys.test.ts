// The ack names the order of every accepted entry (sequenceNumber, orderId, orderSessionKey),
// across chunks and beside rejections; and the progress row of a file being ingested: seen
// moving from another connection on PostgreSQL, gone at the commit, gone after a rollback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { intakeFixture, tokenPassThrough, type IntakeFixture } from '../../helpers/intake.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import type { CardResolver, IntakeDeps } from '../../../src/intake/types.ts';
import { batchProgress, orders } from '../../../src/db/schema.ts';
import { batchDetail } from '../../../src/orders/batch-view.ts';
import { writeBatch } from '../../../samples/generate-batch.ts';

interface Ack {
  counts: { entries: number; accepted: number; rejected: number };
  accepted: Array<{ sequenceNumber: number; orderId: string; orderSessionKey: string }>;
  rejected: Array<{ sequenceNumber: number; errors: Array<{ code: string }> }>;
  batchId: string;
}

describe.each(DB_KINDS)('ack keys and intake progress on %s', (kind) => {
  let f: IntakeFixture;
  beforeAll(async () => {
    f = await intakeFixture(kind);
  });
  afterAll(() => f.close());

  const db = () => f.tdb.database.db;
  const readAck = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Ack;
  const progressRows = () => db().select().from(batchProgress);

  async function generated(name: string, entries: number, invalidEvery?: number): Promise<string> {
    const path = join(f.root, 'inbound', name);
    const out = createWriteStream(path);
    const authorizationToken = `Bearer ${f.accessToken}`;
    await writeBatch(out, { entries, mid: f.merchant.mid, siteId: f.merchant.siteId, authorizationToken, cardTokens: ['tok_test_card'], invalidEvery, runId: `${kind}-${name}` });
    out.end();
    await once(out, 'finish');
    return path;
  }
  const fileOf = (path: string, name: string) => ({ merchantId: f.merchant.merchantId, mid: f.merchant.mid, path, name, outboundDir: join(f.root, 'outbound') });

  it('lists every accepted entry with its orderSessionKey, in sequenceNumber order across chunks', async () => {
    const name = 'keys.json';
    const res = await ingestFile({ ...f.deps, chunkSize: 100 }, fileOf(await generated(name, 450, 7), name));
    expect(res).toMatchObject({ status: 'partially_accepted', counts: { entries: 450, accepted: 386, rejected: 64 } });
    const ack = readAck(res.ackPath);
    expect(ack.accepted).toHaveLength(386);
    expect(ack.accepted.map((a) => a.sequenceNumber)).toEqual(Array.from({ length: 450 }, (_, i) => i + 1).filter((n) => n % 7 !== 0));
    expect(ack.rejected.map((r) => r.sequenceNumber).sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => (i + 1) * 7));
    const rows = await db().select({ id: orders.id, seq: orders.sequenceNumber, orderId: orders.orderId }).from(orders).where(eq(orders.batchId, ack.batchId)).orderBy(orders.sequenceNumber);
    expect(ack.accepted).toEqual(rows.map((r) => ({ sequenceNumber: r.seq, orderId: r.orderId, orderSessionKey: r.id })));
    expect(await progressRows()).toEqual([]);
  });

  it('a file with no duplicate is read once: its chunks stored back to back, none read again', async () => {
    // Each chunk's cards are resolved once per read: a second read would double the calls.
    let calls = 0;
    const counting: CardResolver = { resolve: (tx, m, methods) => (calls++, tokenPassThrough.resolve(tx, m, methods)) };
    const name = 'once.json';
    const res = await ingestFile({ ...f.deps, chunkSize: 50, cards: counting }, fileOf(await generated(name, 1000), name));
    expect(res).toMatchObject({ status: 'accepted', counts: { entries: 1000, accepted: 1000, rejected: 0 } });
    expect(calls).toBe(20);
  });

  it('an entry rejected late (a duplicate orderId) is in rejected, not accepted; a file rejected whole lists none', async () => {
    const dup = await ingestFile(f.deps, f.drop('dup.json', f.sample('mixed.json')));
    const ack = readAck(dup.ackPath);
    const rejectedSeq = new Set(ack.rejected.map((r) => r.sequenceNumber));
    expect(ack.accepted.length).toBe(dup.counts.accepted);
    for (const a of ack.accepted) expect(rejectedSeq.has(a.sequenceNumber)).toBe(false);
    const whole = await ingestFile(f.deps, f.drop('broken.json', f.sample('malformed.json')));
    expect(readAck(whole.ackPath)).toMatchObject({ accepted: [], rejected: [], status: 'rejected' });
  });

  it('a failed file leaves no progress row and no temporary files', async () => {
    let calls = 0;
    const failing: CardResolver = {
      resolve: async (tx, m, methods) => {
        if (++calls === 2) throw new Error('vault unavailable');
        return tokenPassThrough.resolve(tx, m, methods);
      },
    };
    const name = 'fails.json';
    const deps: IntakeDeps = { ...f.deps, chunkSize: 100, cards: failing, progressBesideTransaction: kind === 'postgres' };
    await expect(ingestFile(deps, fileOf(await generated(name, 300), name))).rejects.toThrow('vault unavailable');
    expect(await progressRows()).toEqual([]);
    expect(readdirSync(join(f.root, 'outbound')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  // PostgreSQL only: on PGlite's one session a reader waits for the file's transaction.
  it.each(kind === 'postgres' ? [kind] : [])('on %s, beside the transaction, other sessions see the file\'s progress; the commit removes it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let calls = 0;
    let reached!: () => void;
    const atThird = new Promise<void>((r) => (reached = r));
    const slow: CardResolver = {
      resolve: async (tx, m, methods) => {
        calls++;
        // The second chunk takes over a second, so its end is written (one write a second at most).
        if (calls === 2) await new Promise((r) => setTimeout(r, 1100));
        if (calls === 3) {
          reached();
          await held;
        }
        return tokenPassThrough.resolve(tx, m, methods);
      },
    };
    const name = 'watched.json';
    const running = ingestFile({ ...f.deps, chunkSize: 100, cards: slow, progressBesideTransaction: true }, fileOf(await generated(name, 350), name));
    await atThird;
    const seen = await batchDetail(db(), name, f.merchant.merchantId);
    expect(seen).toMatchObject({ status: 'ingesting', fileName: name, entries: 350, accepted: 200, rejected: 0, orders: null, progress: { decided: 200, percent: 57 } });
    release();
    const res = await running;
    expect(await progressRows()).toEqual([]);
    expect(await batchDetail(db(), name, f.merchant.merchantId)).toMatchObject({ batchId: res.batchId, status: 'accepted', entries: 350, accepted: 350, orders: { pending: 350 } });
  });
});
