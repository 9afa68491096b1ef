// Intake against hostile batch files generated from a seed (test/helpers/hostile.ts): every
// shape in every place, plain and gzip, at a size CI affords. Whatever the file, intake ends
// with an ack (never a throw), a file rejected whole names a catalogued code and leaves
// nothing behind, the ack stays within its bound, and every byte charged to the memory budget
// is given back. The findings of the second security review have a test each below; the
// full-size run against the real daemon, with its RSS, is `npm run bench -- hostile`.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DB_KINDS } from '../../helpers/db.ts';
import { useIntakeFixture, type IntakeFixture } from '../../helpers/intake.ts';
import { hostileCases, writeHostileFile, type HostileCase } from '../../helpers/hostile.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import { INTAKE_ERRORS } from '../../../src/intake/codes.ts';
import { DEFAULT_LIMITS, type IntakeLimits } from '../../../src/intake/limits.ts';
import { MemoryBudget } from '../../../src/intake/budget.ts';
import { ACK_BYTES_PER_INPUT_BYTE, ACK_CONSTANT_BYTES } from '../../../src/intake/ack-rejected.ts';
import { entry } from '../../../samples/generate-batch.ts';
import { MAX_TEXT_BYTES } from '../../../src/intake/scanner.ts';

const SEED = Number(process.env.HOSTILE_SEED ?? 20261128);
const MIB = 1024 * 1024;
// Small budgets, so that small files reach them: the paths taken at full size are taken here.
const LIMITS: IntakeLimits = { ...DEFAULT_LIMITS, maxEntryBytes: 128 * 1024, maxEntries: 20_000, fileMemoryBytes: 8 * MIB, memoryBytes: 12 * MIB };

interface Ack {
  status: string;
  input: string;
  counts: { entries: number; accepted: number; rejected: number };
  error?: { code: string; message: string };
  rejected: Array<{ sequenceNumber: number | null; errors?: Array<{ code: string }>; sameErrorsAs?: number }>;
  rejectedNotListed?: { count: number; positions: string };
}

describe.each(DB_KINDS)('hostile batch files on %s', (kind) => {
  const fixture = useIntakeFixture(kind);
  const f = (): IntakeFixture => fixture();
  const ids = () => ({ mid: f().merchant.mid, siteId: f().merchant.siteId, authorizationToken: `Bearer ${f().accessToken}`, cardToken: 'tok_test_card' });
  const budget = new MemoryBudget(LIMITS.memoryBytes);
  const deps = () => ({ ...f().deps, limits: LIMITS, budget, chunkSize: 1000 });

  async function ingest(name: string, limitsOrWrite: IntakeLimits | ((path: string) => Promise<number> | number), maybeWrite?: (path: string) => Promise<number> | number) {
    const [limits, write] = typeof limitsOrWrite === 'function' ? [LIMITS, limitsOrWrite] : [limitsOrWrite, maybeWrite!];
    const path = join(f().root, 'inbound', name);
    const unpacked = await write(path);
    const res = await ingestFile({ ...deps(), limits }, { merchantId: f().merchant.merchantId, mid: f().merchant.mid, path, name, outboundDir: join(f().root, 'outbound') });
    const ack = JSON.parse(readFileSync(res.ackPath, 'utf8')) as Ack;
    return { res, ack, ackBytes: statSync(res.ackPath).size, unpacked, path };
  }

  const archived = (name: string) => readdirSync(f().deps.archiveDir, { recursive: true }).some((p) => String(p).endsWith(name));

  it(`ends every generated case with a bounded ack and its budget given back (seed ${SEED})`, async () => {
    const cases = hostileCases(SEED, 24, 3 * MIB);
    const seen: string[] = [];
    for (const c of cases) {
      const name = `h-${c.shape}-${c.place}-${c.seed}.json${c.gzip ? '.gz' : ''}`;
      const { ack, ackBytes, unpacked, path } = await ingest(name, (p) => writeHostileFile(p, c, ids()));
      const what = `${name} (${JSON.stringify(c satisfies HostileCase)})`;
      expect(['accepted', 'partially_accepted', 'rejected'], what).toContain(ack.status);
      expect(ackBytes, what).toBeLessThanOrEqual(ACK_BYTES_PER_INPUT_BYTE * unpacked + ACK_CONSTANT_BYTES);
      expect(existsSync(path), what).toBe(false);
      if (ack.error) {
        expect(Object.keys(INTAKE_ERRORS), what).toContain(ack.error.code);
        expect([ack.input, archived(name)], what).toEqual(['deleted', false]);
      }
      if (ack.status === 'rejected') expect(archived(name), what).toBe(false);
      expect(budget.used, what).toBe(0);
      seen.push(ack.error?.code ?? ack.status);
    }
    // The small budgets are reached: the generator finds the paths the bounds guard.
    expect(seen).toEqual(expect.arrayContaining(['ERR_INTAKE_HEADER_TOO_LARGE', 'ERR_INTAKE_ENTRY_TOO_LARGE']));
    expect(budget.peak).toBeLessThanOrEqual(LIMITS.fileMemoryBytes);
  });

  it('finding 1: thousands of header keys holding [[],[],…] are refused at the header bound, holding little', async () => {
    budget.peak = 0;
    const value = `[${Array(21_000).fill('[]').join(',')}]`;
    let read = 0;
    const { ack } = await ingest('keys.json', (p) => {
      const parts = [`{"mid":"${f().merchant.mid}","authorizationToken":"Bearer ${f().accessToken}",`];
      for (let i = 0; i < 400; i++) parts.push(`"k${i}":${value},`);
      parts.push('"requests":[]}');
      const text = parts.join('');
      writeFileSync(p, text);
      read = text.length;
      return read;
    });
    expect(ack).toMatchObject({ status: 'rejected', input: 'deleted', error: { code: 'ERR_INTAKE_HEADER_TOO_LARGE', message: expect.stringContaining('intake.maxHeaderBytes') } });
    expect(read).toBeGreaterThan(20 * MIB);
    // What the header holds is bounded by intake.maxHeaderBytes, whatever follows it.
    expect(budget.peak).toBeLessThanOrEqual(2 * LIMITS.maxHeaderBytes * 16);
  });

  it('finding 1, neighbours: many small header keys, and one budget a shape no bound names reaches', async () => {
    const many = await ingest('many.json', (p) => {
      const keys = Array.from({ length: 5_000 }, (_, i) => `"k${i}":0`).join(',');
      const text = `{"mid":"${f().merchant.mid}",${keys},"requests":[]}`;
      writeFileSync(p, text);
      return text.length;
    });
    expect(many.ack.error).toMatchObject({ code: 'ERR_INTAKE_HEADER_TOO_LARGE', message: expect.stringContaining('intake.maxHeaderKeys') });
    const small = new MemoryBudget(LIMITS.memoryBytes);
    const tight = await ingestFile({ ...deps(), budget: small, limits: { ...LIMITS, fileMemoryBytes: 4 * MIB, maxEntryBytes: 1 * MIB } }, await (async () => {
      const name = 'tight.json';
      const path = join(f().root, 'inbound', name);
      const big = `[${Array(300_000).fill('[]').join(',')}]`;
      writeFileSync(path, `{"mid":"${f().merchant.mid}","authorizationToken":"Bearer ${f().accessToken}","requests":[${big}]}`);
      return { merchantId: f().merchant.merchantId, mid: f().merchant.mid, path, name, outboundDir: join(f().root, 'outbound') };
    })());
    expect(tight, JSON.stringify(tight)).toMatchObject({ status: 'rejected', error: { code: 'ERR_INTAKE_MEMORY_BUDGET', message: expect.stringContaining('intake.fileMemoryBytes') } });
    expect(small.used).toBe(0);
  });

  it('finding 3: 300,001 `{}` entries give an ack within 8 times the file, not 278 MB', async () => {
    const { ack, ackBytes, unpacked } = await ingest('empty-entries.json', { ...LIMITS, maxEntries: DEFAULT_LIMITS.maxEntries }, (p) => {
      const text = `{"mid":"${f().merchant.mid}","authorizationToken":"Bearer ${f().accessToken}","requests":[${Array(300_001).fill('{}').join(',')}]}`;
      writeFileSync(p, text);
      return text.length;
    });
    expect(ack.counts, JSON.stringify(ack.error)).toEqual({ entries: 300_001, accepted: 0, rejected: 300_001 });
    expect(ackBytes).toBeLessThanOrEqual(ACK_BYTES_PER_INPUT_BYTE * unpacked + ACK_CONSTANT_BYTES);
    // The first entry's errors in full, the next ones naming it, the rest counted by position.
    expect(ack.rejected[0]!.errors!.length).toBeGreaterThan(0);
    expect(ack.rejectedNotListed).toMatchObject({ count: 300_001 - ack.rejected.length });
    expect(ack.input).toBe('deleted');
  }, 60_000);

  it('finding 4: a file with no entry accepted is deleted, never archived', async () => {
    const name = `none-${randomUUID()}.json`;
    const { ack } = await ingest(name, (p) => {
      const text = `{"mid":"${f().merchant.mid}","authorizationToken":"Bearer ${f().accessToken}","requests":[${' '.repeat(2 * MIB)}]}`;
      writeFileSync(p, text);
      return text.length;
    });
    expect(ack).toMatchObject({ status: 'rejected', input: 'deleted', counts: { entries: 0 } });
    expect(archived(name)).toBe(false);
  });

  it('an entry with a key or value longer than any field of the model is rejected unread; its neighbours are not', async () => {
    const { ack } = await ingest('long-text.json', (p) => {
      const entries = [0, 1, 2].map((i) => entry(i, { entries: 0, ...ids(), cardTokens: ['tok_test_card'], runId: `long-${kind}` }));
      (entries[0] as Record<string, unknown>)[`k${'k'.repeat(MAX_TEXT_BYTES)}`] = 1;
      entries[1]!.orderId = 'x'.repeat(MAX_TEXT_BYTES + 1);
      const text = JSON.stringify({ mid: f().merchant.mid, authorizationToken: `Bearer ${f().accessToken}`, expiryDateUtc: new Date(Date.now() + 7 * 86_400_000).toISOString(), requests: entries });
      writeFileSync(p, text);
      return text.length;
    });
    expect(ack.counts).toEqual({ entries: 3, accepted: 1, rejected: 2 });
    expect(ack.rejected[0]).toMatchObject({ sequenceNumber: null, position: 1, orderId: null, errors: [{ code: 'ERR_MODEL_FORMAT', message: expect.stringContaining(`longer than ${MAX_TEXT_BYTES} bytes`) }] });
    expect(ack.rejected[1]).toMatchObject({ sequenceNumber: null, position: 2, sameErrorsAs: 1 });
  });

  it('finding 7: an entry naming another merchant\'s mid or siteId is rejected, its neighbours accepted', async () => {
    const other = randomUUID();
    const { ack } = await ingest('foreign.json', (p) => {
      const entries = [0, 1, 2].map((i) => entry(i, { entries: 0, ...ids(), cardTokens: ['tok_test_card'], runId: `foreign-${kind}` }));
      entries[0]!.mid = other;
      entries[2]!.siteId = other;
      const text = JSON.stringify({ mid: f().merchant.mid, authorizationToken: `Bearer ${f().accessToken}`, expiryDateUtc: new Date(Date.now() + 7 * 86_400_000).toISOString(), requests: entries });
      writeFileSync(p, text);
      return text.length;
    });
    expect(ack.counts, JSON.stringify(ack.rejected)).toEqual({ entries: 3, accepted: 1, rejected: 2 });
    expect(ack.rejected.map((r) => [r.sequenceNumber, r.errors?.map((e) => [e.code, (e as { field?: string }).field])])).toEqual([
      [1, [['ERR_API_MERCHANT_MISMATCH', 'mid']]],
      [3, [['ERR_API_MERCHANT_MISMATCH', 'siteId']]],
    ]);
  });
});
