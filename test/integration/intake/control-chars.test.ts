// A poison entry no longer poisons its file: a NUL (or another control character) in one
// entry rejects that entry with a field error, and the others are ingested. Before, the NUL
// reached PostgreSQL, which refused the whole chunk (22P05): no ack, and the file stayed in
// inbound/ to fail again at every start.
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { DB_KINDS } from '../../helpers/db.ts';
import { useIntakeFixture, type IntakeFixture } from '../../helpers/intake.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';

describe.each(DB_KINDS)('control characters in batch entries on %s', (kind) => {
  const fixture = useIntakeFixture(kind);
  let f: IntakeFixture;
  beforeAll(() => {
    f = fixture();
  });

  it('rejects only the entry with a NUL or an escape character; the others are ingested', async () => {
    const batch = JSON.parse(f.variant('valid.json', 'ctl')) as { requests: Array<Record<string, unknown>> };
    batch.requests[0]!.orderId = 'ORD-ctl-\u0000-1';
    (batch.requests[1]!.payer as Record<string, unknown>).id = 'payer\u001b[31m';
    const file = f.drop('ctl.json', JSON.stringify(batch));
    const res = await ingestFile(f.deps, file);
    expect(res).toMatchObject({ status: 'partially_accepted', counts: { entries: 3, accepted: 1, rejected: 2 } });
    const ack = JSON.parse(readFileSync(res.ackPath, 'utf8')) as { rejected: Array<{ sequenceNumber: number; orderId: string; errors: Array<{ field: string; code: string }> }> };
    expect(ack.rejected.map((r) => [r.sequenceNumber, r.errors[0]])).toEqual([
      [1, expect.objectContaining({ field: 'orderId', code: 'ERR_MODEL_FORMAT' })],
      [2, expect.objectContaining({ field: 'payer.id', code: 'ERR_MODEL_FORMAT' })],
    ]);
    expect(ack.rejected[0]!.orderId).toBe('ORD-ctl-?-1');
    expect(existsSync(file.path)).toBe(false);
  });
});
