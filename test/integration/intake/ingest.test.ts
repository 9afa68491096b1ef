import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eq, count } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { intakeFixture, type IntakeFixture } from '../../helpers/intake.ts';
import { FileHandledElsewhere, ingestFile } from '../../../src/intake/ingest.ts';
import { orders, batches } from '../../../src/db/schema.ts';

// On PostgreSQL also with every file's entries parsed in the intake worker (large files only, by default).
const CASES = [...DB_KINDS.map((kind) => ({ kind, worker: false })), ...(DB_KINDS.includes('postgres') ? [{ kind: 'postgres' as const, worker: true }] : [])];

describe.each(CASES)('batch intake on $kind (intake worker: $worker)', ({ kind, worker }) => {
  let f: IntakeFixture;
  beforeAll(async () => {
    f = await intakeFixture(kind);
    if (worker) f.deps.workerMinBytes = 0;
  });
  afterAll(() => f.close());

  const ordersOf = (batchId: string) => f.tdb.database.db.select().from(orders).where(eq(orders.batchId, batchId)).orderBy(orders.sequenceNumber);
  const totalOrders = async () => (await f.tdb.database.db.select({ n: count() }).from(orders))[0]!.n;
  const readAck = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

  it('accepts a valid file: orders SUBMITTED, the batch expiry applied, an ack, the input archived', async () => {
    const file = f.drop('valid.json', f.sample('valid.json'));
    const res = await ingestFile(f.deps, file);
    expect(res).toMatchObject({ status: 'accepted', counts: { entries: 3, accepted: 3, rejected: 0 } });
    const ack = readAck(res.ackPath);
    expect(res.ackPath).toBe(join(f.root, 'outbound', 'valid.json.ack.json'));
    expect(ack).toMatchObject({ file: 'valid.json', mid: f.merchant.mid, status: 'accepted', batchId: res.batchId, rejected: [], counts: { entries: 3, accepted: 3, rejected: 0 } });
    expect(ack.sha256).toMatch(/^[0-9a-f]{64}$/);
    const rows = await ordersOf(res.batchId!);
    expect(rows.map((r) => [r.sequenceNumber, r.status, r.kind, r.cardToken])).toEqual([
      [1, 'SUBMITTED', 'MIT', 'tok_test_card'],
      [2, 'SUBMITTED', 'MIT', 'tok_test_card'],
      [3, 'SUBMITTED', 'MIT', 'tok_test_card'],
    ]);
    expect(rows[0]!.expiresAt?.toISOString()).toBe('2026-12-31T00:00:00.000Z');
    expect(existsSync(file.path)).toBe(false);
    expect(readdirSync(join(f.root, 'archive', f.merchant.mid), { recursive: true }).join()).toContain(`${res.batchId}-valid.json`);
    expect(readdirSync(join(f.root, 'outbound')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses the same file again as a duplicate, keeping nothing', async () => {
    const before = await totalOrders();
    const res = await ingestFile(f.deps, f.drop('valid-again.json', f.sample('valid.json')));
    // The placeholders are filled the same way, so the bytes (and the SHA-256) are the same.
    expect(res).toMatchObject({ status: 'rejected', error: { code: 'ERR_INTAKE_DUPLICATE_FILE' } });
    expect(await totalOrders()).toBe(before);
  });

  it('refuses a file sent again under the same name as a duplicate', async () => {
    const res = await ingestFile(f.deps, f.drop('valid.json', f.sample('valid.json')));
    expect(res).toMatchObject({ status: 'rejected', error: { code: 'ERR_INTAKE_DUPLICATE_FILE' } });
  });

  it('with two instances on one file, one ingests it and the other leaves it (and its ack) alone', async () => {
    const file = f.drop('shared.json', f.variant('valid.json', 'replicas'));
    const results = await Promise.allSettled([ingestFile(f.deps, file), ingestFile(f.deps, file)]);
    const done = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const left = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ status: 'accepted', counts: { accepted: 3 } });
    expect(left).toHaveLength(1);
    expect(left[0]).toBeInstanceOf(FileHandledElsewhere);
    expect(readAck(done[0]!.ackPath)).toMatchObject({ status: 'accepted', batchId: done[0]!.batchId });
    expect(await ordersOf(done[0]!.batchId!)).toHaveLength(3);
  });

  it('accepts and rejects entry by entry, with the reasons in the ack', async () => {
    const res = await ingestFile(f.deps, f.drop('mixed.json', f.sample('mixed.json')));
    expect(res).toMatchObject({ status: 'partially_accepted', counts: { entries: 6, accepted: 2, rejected: 4 } });
    const ack = readAck(res.ackPath);
    const bySeq = Object.fromEntries(ack.rejected.map((r: { sequenceNumber: number; errors: { field: string; code: string }[] }) => [r.sequenceNumber, r.errors.map((e) => `${e.field} ${e.code}`)]));
    expect(bySeq).toEqual({
      2: ['transaction.currency ERR_MODEL_FORMAT'],
      3: ['payer.email ERR_MODEL_REQUIRED'],
      7: ['sequenceNumber ERR_INTAKE_SEQUENCE'],
      5: ['orderId ERR_INTAKE_DUPLICATE_ORDER'],
    });
    expect(JSON.stringify(ack.rejected)).toContain('repeats sequenceNumber 1 of this file');
    expect((await ordersOf(res.batchId!)).map((r) => r.sequenceNumber)).toEqual([1, 6]);
  });

  it('rejects an orderId used by an earlier batch', async () => {
    const text = f.sample('valid.json').replace('"expiryDateUtc": "2026-12-31T00:00:00Z"', '"expiryDateUtc": "2026-12-30T00:00:00Z"');
    const res = await ingestFile(f.deps, f.drop('valid-reused-ids.json', text));
    expect(res).toMatchObject({ status: 'rejected', counts: { entries: 3, accepted: 0, rejected: 3 } });
    expect(JSON.stringify(readAck(res.ackPath).rejected)).toContain('was already used by an earlier order');
  });

  it('rejects a truncated file with line and column, and keeps nothing', async () => {
    const before = await totalOrders();
    const res = await ingestFile(f.deps, f.drop('malformed.json', f.sample('malformed.json')));
    const lines = f.sample('malformed.json').split('\n');
    expect(res.status).toBe('rejected');
    expect(res.error).toMatchObject({ code: 'ERR_INTAKE_SYNTAX', line: lines.length, column: 1 });
    expect(res.error!.message).toContain('unexpected end of file');
    expect(readAck(res.ackPath).error.offset).toBe(Buffer.byteLength(f.filled(f.sample('malformed.json'))));
    expect(await totalOrders()).toBe(before);
  });

  it('rolls back entries already inserted when a later entry is not valid JSON', async () => {
    const before = await totalOrders();
    const good = JSON.parse(f.variant('valid.json', 'rollback')) as { requests: unknown[] };
    const text = JSON.stringify(good, null, 2).replace(/\n {2}\]\n\}$/, ',\n    {"sequenceNumber": 4, "orderId": tru}\n  ]\n}');
    const res = await ingestFile(f.deps, f.drop('bad-entry.json', text));
    expect(res.error).toMatchObject({ code: 'ERR_INTAKE_SYNTAX' });
    const lineOfBad = text.split('\n').findIndex((l) => l.includes('"orderId": tru')) + 1;
    expect(res.error!.line).toBe(lineOfBad);
    expect(res.error!.message).toContain('entry 4');
    expect(await totalOrders()).toBe(before);
    // No batch of orders: only the record of the rejection, with its reason and no entries.
    const rows = await f.tdb.database.db.select().from(batches).where(eq(batches.fileName, 'bad-entry.json'));
    expect(rows).toMatchObject([{ status: 'rejected', errorCode: 'ERR_INTAKE_SYNTAX', entryCount: 0, acceptedCount: 0, fileBytes: Buffer.byteLength(f.filled(text)) }]);
  });

  it('reads the header after requests, and gzip files', async () => {
    const parsed = JSON.parse(f.variant('valid.json', 'gz')) as Record<string, unknown>;
    const { requests, ...header } = parsed;
    const res = await ingestFile(f.deps, f.drop('late-header.json.gz', JSON.stringify({ requests, ...header }), { gzip: true }));
    expect(res).toMatchObject({ status: 'accepted', counts: { accepted: 3 } });
  });

  it.each([
    ['another merchant\'s mid', (t: string) => t.replace(/"mid": "[^"]+",\n {2}"authorizationToken"/, '"mid": "11111111-1111-4111-8111-111111111111",\n  "authorizationToken"'), 'ERR_INTAKE_UNAUTHORIZED'],
    ['a forged token', (t: string) => t.replace('REPLACE_WITH_ACCESS_TOKEN', 'eyJhbGciOiJIUzI1NiJ9.e30.x'), 'ERR_INTAKE_UNAUTHORIZED'],
    ['no token', (t: string) => t.replace(/\s*"authorizationToken": "[^"]+",/, ''), 'ERR_INTAKE_HEADER_INVALID'],
  ])('rejects a file with %s, keeping nothing', async (_name, edit, code) => {
    const before = await totalOrders();
    const res = await ingestFile(f.deps, f.drop(`hdr-${code}.json`, edit(f.variant('valid.json', `hdr${before}`))));
    expect(res).toMatchObject({ status: 'rejected', error: { code } });
    expect(await totalOrders()).toBe(before);
  });
});
