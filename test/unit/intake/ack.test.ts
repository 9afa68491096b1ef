// The ack writer: accepted entries streamed into the ack as they are stored, rejected ones
// through a second temporary file copied in at the end (the two arrive interleaved), the
// summary last; nothing left behind on discard.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckWriter, type AckSummary } from '../../../src/intake/ack.ts';

const dir = mkdtempSync(join(tmpdir(), 'rescued-ack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const summary = (file: string, accepted: number, rejected: number): AckSummary => ({
  file, sha256: 'f'.repeat(64), mid: 'm', batchId: 'b', receivedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z',
  status: rejected ? 'partially_accepted' : 'accepted', counts: { entries: accepted + rejected, accepted, rejected }, input: 'archived',
});
const key = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('AckWriter', () => {
  it('writes accepted keys in order and rejected entries, interleaved as they came, into one JSON document', async () => {
    const ack = new AckWriter(dir, 'mixed.json');
    // Long multi-byte orderIds: the rejected copy spans many read chunks, some cut inside a character.
    const long = 'Ö€😀'.repeat(5000);
    const rejected = [];
    for (let chunk = 0; chunk < 30; chunk++) {
      const base = chunk * 10;
      const reject = { sequenceNumber: base + 10, orderId: `${long}-${base + 10}`, errors: [{ field: 'transaction.currency', code: 'ERR_MODEL_FORMAT', message: 'must be an ISO 4217 currency code' }] };
      rejected.push(reject);
      await Promise.all([ack.reject(reject), ack.accept(Array.from({ length: 9 }, (_, i) => ({ sequenceNumber: base + i + 1, orderId: `ORD-${base + i + 1}`, orderSessionKey: key(base + i + 1) })))]);
    }
    expect([ack.acceptedCount, ack.rejectedCount]).toEqual([270, 30]);
    await ack.finish(summary('mixed.json', 270, 30));
    const path = await ack.publish();
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    expect(doc.accepted).toHaveLength(270);
    expect(doc.accepted[0]).toEqual({ sequenceNumber: 1, orderId: 'ORD-1', orderSessionKey: key(1) });
    expect(doc.accepted.map((a: { sequenceNumber: number }) => a.sequenceNumber)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1).filter((n) => n % 10 !== 0));
    // The first rejected entry carries its errors; the others, refused alike, name it.
    expect(doc.rejected).toEqual(rejected.map((r, i) => (i === 0 ? r : { sequenceNumber: r.sequenceNumber, orderId: r.orderId, sameErrorsAs: 10 })));
    expect(doc).toMatchObject({ file: 'mixed.json', status: 'partially_accepted', counts: { entries: 300, accepted: 270, rejected: 30 } });
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('writes empty lists when nothing was accepted or rejected', async () => {
    const ack = new AckWriter(dir, 'empty.json');
    await ack.finish({ ...summary('empty.json', 0, 0), status: 'rejected', batchId: null, error: { code: 'ERR_INTAKE_SYNTAX', message: 'x' } });
    const doc = JSON.parse(readFileSync(await ack.publish(), 'utf8'));
    expect(doc).toMatchObject({ accepted: [], rejected: [], status: 'rejected', error: { code: 'ERR_INTAKE_SYNTAX' } });
  });

  it('discard removes both temporary files and publishes nothing', async () => {
    const ack = new AckWriter(dir, 'gone.json');
    await ack.accept([{ sequenceNumber: 1, orderId: 'ORD-1', orderSessionKey: key(1) }]);
    await ack.reject({ sequenceNumber: 2, orderId: 'ORD-2', errors: [] });
    // The streams open their files asynchronously: wait until both are there.
    await expect.poll(() => readdirSync(dir).filter((n) => n.startsWith('.gone.json')).length).toBe(2);
    await ack.discard();
    expect(readdirSync(dir).filter((n) => n.includes('gone.json'))).toEqual([]);
  });
});
