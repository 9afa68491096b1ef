// The security review's findings on card numbers in free text, one test each: spellings that
// passed both the scrubber and the raw-file scan (dots, a run of two spaces, JSON escapes), a
// dashed American Express number as an orderId (it reached the ack), and a number as an
// additionalFields key. Each one through a batch file, and the identifier cases over HTTP too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { useIntakeFixture, type IntakeFixture } from '../../helpers/intake.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import { fileHasCardNumber } from '../../../src/intake/card-scan.ts';
import { findCardNumbers } from '../../../src/card-numbers.ts';
import { orders } from '../../../src/db/schema.ts';

type Obj = Record<string, unknown>;

/** Every file under a folder, as latin1 text (the bytes as they are). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [readFileSync(p, 'latin1')];
  });
}

const holds = (text: string, pan: string) => findCardNumbers(text).some((n) => n.digits.includes(pan)) || text.includes(pan);

describe.each(DB_KINDS)('the review\'s card-number findings, through a batch file on %s', (kind) => {
  const fixture = useIntakeFixture(kind);
  let f: IntakeFixture;
  beforeAll(() => {
    f = fixture();
  });

  /** A sample file whose first entry `change` edits, written as JSON text `raw` may rewrite. */
  async function ingest(tag: string, change: (e: Obj) => void, raw: (text: string) => string = (t) => t) {
    const batch = JSON.parse(f.variant('valid.json', tag)) as { requests: Obj[] };
    change(batch.requests[0]!);
    const res = await ingestFile(f.deps, f.drop(`${tag}.json`, raw(JSON.stringify(batch))));
    const ackText = readFileSync(res.ackPath, 'utf8');
    return { res, ackText, ack: JSON.parse(ackText) as { accepted: Array<{ orderSessionKey: string; orderId: string }>; rejected: Array<{ orderId: string; errors: Array<{ field: string; code: string }> }> } };
  }
  const storedRequest = async (key: string) => (await f.tdb.database.db.select({ request: orders.request }).from(orders).where(eq(orders.id, key)))[0]!.request as Obj;

  it.each([
    ['5555.5555.5555.4444', '5555555555554444', '555555******4444', (e: Obj) => ((e.orderItems as Obj[])[0]!.description = 'call about 5555.5555.5555.4444')],
    ['3782  822463  10005', '378282246310005', '378282*****0005', (e: Obj) => ((e.transaction as Obj).responseDescription = 'declined 3782  822463  10005')],
  ])('%s in free text is stored masked and the file is not archived', async (written, pan, masked, change) => {
    const tag = written.replace(/\W+/g, '');
    const { res, ack } = await ingest(tag, change);
    expect(res).toMatchObject({ status: 'accepted', input: 'deleted' });
    expect(JSON.stringify(await storedRequest(ack.accepted[0]!.orderSessionKey))).toContain(masked);
    for (const text of filesUnder(join(f.root, 'archive'))) expect(holds(text, pan)).toBe(false);
  });

  it('a number written as JSON escapes in the raw file is found by the scan, stored masked, not archived', async () => {
    const { res, ack } = await ingest('escaped', (e) => ((e.billingInformation as Obj).addressLine2 = '@@PAN@@'), (t) => t.replace('@@PAN@@', [...'4111111111111111'].map((d) => `\\u003${d}`).join('')));
    expect(res.input).toBe('deleted');
    expect((await storedRequest(ack.accepted[0]!.orderSessionKey)).billingInformation).toMatchObject({ addressLine2: '411111******1111' });
    for (const text of filesUnder(join(f.root, 'archive'))) expect(holds(text, '4111111111111111')).toBe(false);
  });

  it('the raw-file scan finds dotted, double-spaced, escaped and full-width numbers, and leaves ids alone', async () => {
    const files = {
      dots: '{"a":"5555.5555.5555.4444"}', spaces: '{"a":"3782  822463  10005"}', escapes: `{"a":"${[...'5555555555554444'].map((d) => `\\u003${d}`).join('')}"}`,
      fullWidth: `{"a":"${String.fromCharCode(...[...'4111111111111111'].map((d) => 0xff10 + Number(d)))}"}`,
    };
    for (const [name, text] of Object.entries(files)) {
      const file = f.drop(`scan-${name}.json`, text);
      expect(await fileHasCardNumber(file.path, file.name), name).toBe(true);
    }
    const ids = f.drop('scan-ids.json', '{"mid":"6f1c2a7e-9b3d-4c5e-8f10-2a3b4c5d6e7f","orderId":"ORD-4111111111111111","at":"2026-11-27T12:00:00Z"}');
    expect(await fileHasCardNumber(ids.path, ids.name)).toBe(false);
  });

  it('an orderId holding a dashed American Express number is refused, and the ack shows it masked', async () => {
    const { res, ack, ackText } = await ingest('amex-order', (e) => (e.orderId = '3782-822463-10005'));
    expect(res.status).toBe('partially_accepted');
    expect(ack.rejected).toEqual([expect.objectContaining({ orderId: '378282*****0005', errors: [expect.objectContaining({ field: 'orderId', code: 'ERR_MODEL_CARD_NUMBER_IN_IDENTIFIER' })] })]);
    expect(holds(ackText, '378282246310005')).toBe(false);
  });

  it('an additionalFields key holding a number is stored masked', async () => {
    const { ack } = await ingest('key', (e) => (e.additionalFields = [{ key: 'card 6011 1111 1111 1117', value: 'x' }]));
    expect((await storedRequest(ack.accepted[0]!.orderSessionKey)).additionalFields).toEqual([{ key: 'card 601111******1117', value: 'x' }]);
  });
});

describe.each(DB_KINDS)('the review\'s card-number findings, over HTTP on %s', (kind) => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture(kind);
  });
  afterAll(() => f.close());

  it.each([
    ['orderId', { orderId: '3782-822463-10005' }],
    ['payer.id', { payer: { email: 'jane.doe@example.com', id: '5555.5555.5555.4444' } }],
  ])('an evaluate whose %s holds a card number is refused with 400 and nothing is stored', async (field, top) => {
    const res = await f.post('/v1/evaluate', { ...evaluateBody(await f.a.tokenOf('4111111111111111'), { mit: true }), ...top });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([expect.objectContaining({ field, code: 'ERR_MODEL_CARD_NUMBER_IN_IDENTIFIER' })]);
    expect(await f.t.tdb.database.db.select().from(orders)).toEqual([]);
  });

  it('an additionalFields key holding a number is stored masked', async () => {
    const res = await f.post('/v1/evaluate', evaluateBody(await f.a.tokenOf('4111111111111111'), { mit: true, top: { additionalFields: [{ key: '4111 1111 1111 1111', value: 'x' }] } }));
    expect(res.statusCode).toBe(200);
    const [row] = await f.t.tdb.database.db.select({ request: orders.request }).from(orders).where(eq(orders.id, res.json().orderSessionKey));
    expect((row!.request as Obj).additionalFields).toEqual([{ key: '411111******1111', value: 'x' }]);
  });
});
