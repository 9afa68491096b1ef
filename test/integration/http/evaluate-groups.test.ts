// Concurrent evaluates are written in groups (src/orders/evaluate-groups.ts): one statement for
// the requests that arrive together. A burst mixing new orders, repeated requests (same key and
// body) and reused orderIds must still give each request its own answer, as one at a time
// would: one order per orderId, one charge per order, a repeat replaying the first answer (or
// 409 while it is in flight), a reused orderId refused.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, SOFT, type ApiFixture } from '../../helpers/api.ts';
import { ManualClock } from '../../../src/clock.ts';
import { orders, processorCalls } from '../../../src/db/schema.ts';
import { statementsSent } from '../../../src/db/prepared.ts';

type Obj = Record<string, unknown>;

describe.each(DB_KINDS)('a burst of evaluates on %s', (kind) => {
  let f: ApiFixture;
  const db = () => f.t.tdb.database.db;
  beforeAll(async () => {
    // As the daemon runs: a merchant's and client's status remembered 5 s.
    f = await apiFixture(kind, { clock: new ManualClock(new Date('2026-11-27T12:00:00Z')), activeCacheMs: 5_000 });
  });
  afterAll(() => f.close());

  it('writes a burst of new orders in one statement or a few', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const bodies = Array.from({ length: 30 }, (_, i) => evaluateBody(tok, { tx: i % 3 === 0 ? { responseCode: '54', responseCodeSource: 'ISO' } : SOFT }));
    // One request first: the token, merchant and card look-ups are then remembered, as in a running daemon.
    expect((await f.post('/v1/evaluate', evaluateBody(tok, { tx: SOFT }))).statusCode).toBe(200);
    const before = statementsSent();
    const res = await Promise.all(bodies.map((b) => f.post('/v1/evaluate', b)));
    const sent = statementsSent() - before;
    expect(res.map((r) => r.statusCode)).toEqual(bodies.map(() => 200));
    expect(new Set(res.map((r) => r.json().status))).toEqual(new Set(['APPROVED', 'CHALLENGE']));
    // Only PostgreSQL's client counts its statements (src/db/prepared.ts).
    if (kind === 'postgres') expect(sent).toBeLessThanOrEqual(4);
  });

  it('answers each request of a burst with repeats and reused orderIds as one at a time would', async () => {
    const tok = await f.a.tokenOf('4111111111111111');
    const fresh = Array.from({ length: 30 }, (_, i) => evaluateBody(tok, { tx: i % 3 === 0 ? { responseCode: '54', responseCodeSource: 'ISO' } : SOFT }));
    const repeats = fresh.slice(0, 4).map((b) => ({ ...b }));
    const reused = fresh.slice(4, 8).map((b) => ({ ...b, idempotencyKey: randomUUID() }));
    // Indices: 0–29 new orders, 30–33 repeat 0–3, 34–37 reuse the orderIds of 4–7.
    const bodies: Obj[] = [...fresh, ...repeats, ...reused];
    // Interleaved, so a repeat or a reused orderId can fall in the same group as its first.
    const order = bodies.map((_, i) => i).sort((a, b) => ((a * 7) % bodies.length) - ((b * 7) % bodies.length));
    const answers = new Map<number, { status: number; json: Obj }>();
    await Promise.all(order.map(async (i) => {
      const res = await f.post('/v1/evaluate', bodies[i]);
      answers.set(i, { status: res.statusCode, json: res.json() as Obj });
    }));

    const ok = (i: number) => answers.get(i)!.status === 200;
    for (let i = 8; i < 30; i++) expect(ok(i), JSON.stringify(answers.get(i))).toBe(true);
    // A reused orderId: whichever of the two came first has the order, the other is refused.
    for (let j = 4; j < 8; j++) {
      const pair = [answers.get(j)!, answers.get(30 + j)!];
      expect(pair.map((a) => a.status).sort()).toEqual([200, 409]);
      expect(pair.find((a) => a.status === 409)!.json.statusCode).toBe('ERR_API_DUPLICATE_ORDER_ID');
    }
    // A repeated request: both answered alike, or one of them 409 while the other was in flight.
    for (let j = 0; j < 4; j++) {
      const pair = [answers.get(j)!, answers.get(30 + j)!];
      const done = pair.filter((a) => a.status === 200);
      expect(done.length).toBeGreaterThan(0);
      if (done.length === 2) expect(done[1]!.json).toEqual(done[0]!.json);
      else expect(pair.find((a) => a.status !== 200)!.json.statusCode).toBe('ERR_API_IDEMPOTENCY_IN_FLIGHT');
    }
    const keys = new Set([...answers.values()].filter((a) => a.status === 200).map((a) => a.json.orderSessionKey as string));
    expect(keys.size).toBe(30);

    const stored = await db().select({ id: orders.id, orderId: orders.orderId }).from(orders).where(eq(orders.merchantId, f.a.merchantId));
    const ours = stored.filter((o) => fresh.some((b) => b.orderId === o.orderId));
    expect(ours).toHaveLength(30);
    expect(ours.map((o) => o.id).sort()).toEqual([...keys].sort());
    // One charge per order with an attempt; none for a refused request that kept no order.
    const calls = await db().select({ reference: processorCalls.reference, operation: processorCalls.operation }).from(processorCalls);
    const charged = calls.filter((c) => c.operation === 'authorize');
    for (const o of ours) expect(charged.filter((c) => c.reference === o.id).length).toBeLessThanOrEqual(1);
    const unvoided = charged.filter((c) => !stored.some((o) => o.id === c.reference) && !calls.some((v) => v.operation === 'void' && v.reference === c.reference));
    expect(unvoided).toEqual([]);
  });
});
