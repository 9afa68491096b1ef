// The decline time bound through the paths a merchant uses: POST /v1/evaluate answers 400 with
// the field's ERR_MODEL_TIME_IN_FUTURE, and a batch entry dated ahead of the file's arrival is
// rejected in the ack while its neighbours are accepted. Both read api.clockSkewSeconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { intakeFixture, type IntakeFixture } from '../../helpers/intake.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';

const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.now() + ms).toISOString();

describe.each(DB_KINDS)('a decline time in the future on %s', (kind) => {
  let f: ApiFixture;
  let intake: IntakeFixture;
  beforeAll(async () => {
    f = await apiFixture(kind);
    intake = await intakeFixture(kind);
  });
  afterAll(async () => {
    await f?.close();
    await intake?.close();
  });

  it('evaluate: 400 naming transaction.timestampUtc beyond the skew, accepted within it', async () => {
    const card = await f.a.tokenOf('4000000000009995');
    const late = await f.post('/v1/evaluate', evaluateBody(card, { mit: true, tx: { timestampUtc: at(2 * 86_400_000) } }));
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({ success: false, statusCode: 'ERR_MODEL_INVALID', errors: [{ field: 'transaction.timestampUtc', code: 'ERR_MODEL_TIME_IN_FUTURE' }] });
    const skewed = await f.post('/v1/evaluate', evaluateBody(card, { mit: true, tx: { timestampUtc: at(2 * MINUTE) } }));
    expect(skewed.statusCode, skewed.body).toBe(200);
  });

  it('with api.clockSkewSeconds 0, a minute ahead is refused too', async () => {
    const strict = await apiFixture(kind, { api: { clockSkewSeconds: 0 } });
    try {
      const card = await strict.a.tokenOf('4000000000009995');
      const res = await strict.post('/v1/evaluate', evaluateBody(card, { mit: true, tx: { timestampUtc: at(MINUTE) } }));
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([expect.objectContaining({ field: 'transaction.timestampUtc', code: 'ERR_MODEL_TIME_IN_FUTURE' })]);
    } finally {
      await strict.close();
    }
  });

  it('a batch entry dated ahead of the file is rejected in the ack, the others accepted', async () => {
    const doc = JSON.parse(intake.variant('valid.json', 'future')) as { requests: Array<{ transaction: { timestampUtc: string } }> };
    doc.requests[1]!.transaction.timestampUtc = at(86_400_000);
    doc.requests[2]!.transaction.timestampUtc = at(-MINUTE);
    const res = await ingestFile(intake.deps, intake.drop('future.json', JSON.stringify(doc)));
    expect(res).toMatchObject({ status: 'partially_accepted', counts: { entries: 3, accepted: 2, rejected: 1 } });
    const ack = JSON.parse(readFileSync(res.ackPath, 'utf8')) as { rejected: Array<{ sequenceNumber: number; errors: Array<{ field: string; code: string }> }> };
    expect(ack.rejected).toEqual([expect.objectContaining({ sequenceNumber: 2, errors: [expect.objectContaining({ field: 'transaction.timestampUtc', code: 'ERR_MODEL_TIME_IN_FUTURE' })] })]);
  });
});
