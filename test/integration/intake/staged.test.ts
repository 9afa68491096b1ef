// The staged ingest of a large file (src/intake/staged.ts), on both databases: the file is
// checked whole before anything is stored, then committed a few entries at a time (here 4,
// in chunks of 2) as an `ingesting` batch whose orders the engine takes up at once; a run
// stopped after some commits is resumed from the first entry not committed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { eq, inArray } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { key32 } from '../../helpers/keys.ts';
import { expandRejected, intakeFixture, type AckRow, type IntakeFixture } from '../../helpers/intake.ts';
import { entry } from '../../../samples/generate-batch.ts';
import type { Db } from '../../../src/db/client.ts';
import { attempts, batches, orders } from '../../../src/db/schema.ts';
import { findFinishedBatches } from '../../../src/db/queries/batch-results.ts';
import { createEngine } from '../../../src/engine/index.ts';
import { vaultCardResolver } from '../../../src/intake/cards.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import type { ChunkCommitted } from '../../../src/intake/types.ts';
import { ManualClock } from '../../../src/clock.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { createVault } from '../../../src/vault/service.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { engineConfig } from '../../helpers/engine.ts';

const ENTRIES = 20;
const COMMIT = 4;

describe.each(DB_KINDS)('staged ingest on %s', (kind) => {
  let f: IntakeFixture;
  let db: Db;
  let token: string;
  const ring = keyRingFrom({ v1: key32() }, 'v1');
  const fingerprintKey = key32();
  const testCards = sandboxTestCards();
  const vaultOn = (on: Db) => createVault({ db: on, ring, fingerprintKey, mode: 'sandbox', testCards });
  let hook: ((c: ChunkCommitted) => Promise<void>) | undefined;

  beforeAll(async () => {
    f = await intakeFixture(kind, vaultCardResolver((tx) => vaultOn(tx as unknown as Db), testCards));
    db = f.tdb.database.db;
    // Every file is staged, committed COMMIT entries at a time.
    Object.assign(f.deps, { workerMinBytes: 0, stagedCommitEntries: COMMIT, onChunkCommitted: (c: ChunkCommitted) => hook?.(c) });
    token = (await vaultOn(db).tokenize(f.merchant.merchantId, { number: '4111111111111111', month: 12, year: 2035, firstName: 'Test', lastName: 'Payer' })).card.token;
  });
  afterAll(() => f.close());

  /** A batch file of `n` entries (every `invalidEvery`th rejected by the model), the header before or after them. */
  function batchText(runId: string, opts: { n?: number; invalidEvery?: number; headerAfter?: boolean; edit?: (e: Record<string, unknown>, i: number) => void } = {}): string {
    const n = opts.n ?? ENTRIES;
    const list = Array.from({ length: n }, (_, i) => {
      const e = entry(i, { entries: n, mid: f.merchant.mid, authorizationToken: f.accessToken, cardTokens: [token], siteId: f.merchant.siteId, runId, invalidEvery: opts.invalidEvery });
      opts.edit?.(e, i);
      return JSON.stringify(e);
    });
    const expiry = new Date(Date.now() + 20 * 86_400_000).toISOString();
    const header = `"mid": ${JSON.stringify(f.merchant.mid)}, "authorizationToken": ${JSON.stringify(f.accessToken)}, "expiryDateUtc": "${expiry}"`;
    const requests = `"requests": [\n${list.join(',\n')}\n]`;
    return opts.headerAfter ? `{${requests},\n${header}}\n` : `{${header},\n${requests}}\n`;
  }

  const ordersOf = (batchId: string) => db.select({ id: orders.id, orderId: orders.orderId, sequenceNumber: orders.sequenceNumber, status: orders.status }).from(orders).where(eq(orders.batchId, batchId));
  const batchRows = (fileName: string) => db.select().from(batches).where(eq(batches.fileName, fileName));
  const readAck = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { status: string; counts: Record<string, number>; rejected: AckRow[]; accepted: Array<{ sequenceNumber: number; orderSessionKey: string }> };

  it('commits the first entries as an ingesting batch the engine takes up at once, and the results wait for the last', async () => {
    const clock = new ManualClock(new Date());
    const engine = createEngine({ db, processor: createSandboxProcessor({ db, vault: vaultOn(db), clock }), clock, log: silentLog, testMode: true, config: engineConfig({ sweepCron: '0 0 0 1 1 *' }) });
    const seen: Array<{ commit: ChunkCommitted; status: string; attempted: number; finishedListed: boolean }> = [];
    hook = async (c) => {
      if (seen.length > 0) return;
      // Planned (a short back-off after the issuer's outage), then attempted once it is due.
      clock.set(Date.now() + 1000);
      await engine.runOnce();
      clock.advance(3_600_000);
      await engine.runOnce();
      const [row] = await db.select().from(batches).where(eq(batches.id, c.batchId));
      const ids = (await ordersOf(c.batchId)).map((o) => o.id);
      const tried = ids.length ? await db.select({ id: attempts.id }).from(attempts).where(inArray(attempts.orderSessionKey, ids)) : [];
      const finished = await findFinishedBatches(db, 50);
      seen.push({ commit: c, status: row!.status, attempted: tried.length, finishedListed: finished.some((b) => b.id === c.batchId) });
    };
    try {
      // An issuer that was unavailable (91): tried again at once, not on a payday ahead.
      const unavailable = (e: Record<string, unknown>) => void Object.assign(e.transaction as object, { responseCode: '91', responseCodeSource: 'NA' });
      const res = await ingestFile(f.deps, f.drop('overlap.json', batchText('overlap', { edit: unavailable })));
      expect(res).toMatchObject({ status: 'accepted', counts: { entries: ENTRIES, accepted: ENTRIES, rejected: 0 } });
      // At the first commit: COMMIT entries stored, the batch still ingesting, an order attempted,
      // and the results file not due although every order stored so far may be final.
      expect(seen).toHaveLength(1);
      expect(seen[0]!.commit).toMatchObject({ entries: COMMIT, accepted: COMMIT, total: ENTRIES });
      expect(seen[0]!.status).toBe('ingesting');
      expect(seen[0]!.attempted).toBeGreaterThan(0);
      expect(seen[0]!.finishedListed).toBe(false);
      const [row] = await batchRows('overlap.json');
      expect(row).toMatchObject({ status: 'accepted', entryCount: ENTRIES, acceptedCount: ENTRIES, rejectedCount: 0 });
      expect(readAck(res.ackPath)).toMatchObject({ status: 'accepted', counts: { entries: ENTRIES, accepted: ENTRIES } });
    } finally {
      hook = undefined;
      await engine.stop();
    }
  });

  it('resumes a stopped ingest from the first entry not committed: one batch, each entry stored once, one ack for the whole file', async () => {
    // Entry 2 repeats entry 1's orderId (a duplicate in the file); every 3rd is refused by the model.
    const text = batchText('resume', { invalidEvery: 3, edit: (e, i) => void (i === 1 && (e.orderId = 'ORD-resume-1')) });
    let commits = 0;
    hook = async () => {
      if (++commits === 3) throw new Error('stopped after the third commit');
    };
    const file = f.drop('resume.json', text);
    await expect(ingestFile(f.deps, file)).rejects.toThrow(/stopped after the third commit/);
    const [stopped] = await batchRows('resume.json');
    expect(stopped).toMatchObject({ status: 'ingesting', entryCount: ENTRIES });
    // Three commits of COMMIT entries or so (a redone COPY commits the entries it had taken).
    const committed = stopped!.acceptedCount + stopped!.rejectedCount;
    expect(committed).toBeGreaterThanOrEqual(2 * COMMIT);
    expect(committed).toBeLessThan(ENTRIES);
    const before = await ordersOf(stopped!.id);
    expect(before).toHaveLength(stopped!.acceptedCount);
    expect(existsSync(file.path)).toBe(true);
    expect(existsSync(`${f.root}/outbound/resume.json.ack.json`)).toBe(false);

    hook = undefined;
    const res = await ingestFile(f.deps, file);
    // Entries 3, 6, …, 18 (6) refused by the model, entry 2 a duplicate.
    const rejected = [2, ...Array.from({ length: Math.floor(ENTRIES / 3) }, (_, i) => 3 * (i + 1))].sort((a, b) => a - b);
    expect(res).toMatchObject({ batchId: stopped!.id, status: 'partially_accepted', counts: { entries: ENTRIES, accepted: ENTRIES - rejected.length, rejected: rejected.length } });
    expect(await batchRows('resume.json')).toHaveLength(1);
    const after = await ordersOf(stopped!.id);
    expect(after).toHaveLength(ENTRIES - rejected.length);
    expect(new Set(after.map((o) => o.orderId)).size).toBe(after.length);
    // The orders committed before the stop are the same rows.
    expect(after.map((o) => o.id)).toEqual(expect.arrayContaining(before.map((o) => o.id)));
    const ack = readAck(res.ackPath);
    expect(ack.counts).toEqual({ entries: ENTRIES, accepted: ENTRIES - rejected.length, rejected: rejected.length });
    // Listed as found: an entry the model refuses before one the store does.
    expect(expandRejected(ack.rejected).map((r) => r.sequenceNumber).sort((a, b) => a - b)).toEqual(rejected);
    expect(expandRejected(ack.rejected).find((r) => r.sequenceNumber === 2)!.errors![0]).toMatchObject({ code: 'ERR_INTAKE_DUPLICATE_ORDER' });
    expect(new Set(ack.accepted.map((a) => a.orderSessionKey))).toEqual(new Set(after.map((o) => o.id)));
    expect(existsSync(file.path)).toBe(false);
  });

  it('ends the interrupted batch of a file replaced under the same name with what it committed, and ingests the new file as its own batch', async () => {
    hook = async (c) => {
      hook = undefined;
      throw new Error(`stopped after the first commit (${c.entries} entries)`);
    };
    const first = f.drop('replaced.json', batchText('replaced-a'));
    await expect(ingestFile(f.deps, first)).rejects.toThrow(/stopped after the first commit/);
    const [stopped] = await batchRows('replaced.json');
    expect(stopped!.status).toBe('ingesting');
    const held = stopped!.acceptedCount + stopped!.rejectedCount;
    // The merchant uploads another file under the same name before the ingest resumes.
    const res = await ingestFile(f.deps, f.drop('replaced.json', batchText('replaced-b')));
    const rows = await batchRows('replaced.json');
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.id === stopped!.id)).toMatchObject({ status: 'accepted', entryCount: held, acceptedCount: held });
    expect(rows.find((r) => r.id === res.batchId)).toMatchObject({ status: 'accepted', entryCount: ENTRIES, acceptedCount: ENTRIES });
    expect(await ordersOf(stopped!.id)).toHaveLength(held);
  });

  it('rejects whole, keeping nothing, a file whose last entry is not valid JSON', async () => {
    const text = batchText('tail').replace(`"orderId":"ORD-tail-${ENTRIES}",`, `"orderId":"ORD-tail-${ENTRIES}",,`);
    expect(text).toContain(',,');
    hook = async () => {
      throw new Error('nothing may be committed');
    };
    try {
      const res = await ingestFile(f.deps, f.drop('tail.json', text));
      expect(res).toMatchObject({ status: 'rejected', error: { code: 'ERR_INTAKE_SYNTAX', line: ENTRIES + 2 } });
      const rows = await batchRows('tail.json');
      expect(rows.map((r) => r.status)).toEqual(['rejected']);
      expect(await db.select({ id: orders.id }).from(orders).where(inArray(orders.orderId, [`ORD-tail-1`, `ORD-tail-${ENTRIES - 1}`]))).toEqual([]);
    } finally {
      hook = undefined;
    }
  });

  it('rejects whole a file already ingested (its SHA-256), and reads a header after the entries', async () => {
    const text = batchText('after', { headerAfter: true });
    const first = await ingestFile(f.deps, f.drop('after.json', text));
    expect(first).toMatchObject({ status: 'accepted', counts: { entries: ENTRIES, accepted: ENTRIES } });
    hook = async () => {
      throw new Error('nothing may be committed');
    };
    try {
      const again = await ingestFile(f.deps, f.drop('after-again.json', text));
      expect(again).toMatchObject({ status: 'rejected', error: { code: 'ERR_INTAKE_DUPLICATE_FILE' } });
    } finally {
      hook = undefined;
    }
    expect(await ordersOf(first.batchId!)).toHaveLength(ENTRIES);
    expect((await batchRows('after-again.json')).map((r) => r.status)).toEqual(['rejected']);
  });
});
