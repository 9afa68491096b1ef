// The sandbox processor over a real database: test cards found through the vault, answers
// stored per idempotency key before they are returned, repeated keys answered alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { engineFixture, type EngineFixture } from '../../helpers/engine.ts';
import { ManualClock } from '../../../src/clock.ts';
import { processorCalls } from '../../../src/db/schema.ts';
import { createSandboxProcessor } from '../../../src/processors/sandbox.ts';
import { createSandbox } from '../../../src/processors/index.ts';
import type { AuthorizeRequest, Processor } from '../../../src/processors/types.ts';

describe.each(DB_KINDS)('sandbox processor on %s', (kind) => {
  let f: EngineFixture;
  let clock: ManualClock;
  let sandbox: Processor;
  const authorize = async (number: string, over: Partial<AuthorizeRequest> = {}) => {
    const reference = over.reference ?? randomUUID();
    return sandbox.authorize({ idempotencyKey: `${reference}:1`, reference, merchantId: f.merchantId, cardToken: await f.tokenOf(number), amount: 2500, currency: 'USD', isMIT: true, timezoneUtcOffset: 0, ...over });
  };

  beforeAll(async () => {
    f = await engineFixture(kind);
    clock = new ManualClock(new Date('2026-03-10T12:00:00Z'));
    sandbox = createSandboxProcessor({ db: f.db, vault: f.vault, clock });
  });
  afterAll(() => f.close());

  it('approves and declines per the test card, with a stored answer per key', async () => {
    const ok = await authorize('4111111111111111');
    expect(ok).toMatchObject({ approved: true, responseCode: '00', replayed: false });
    expect(ok.processorRef).toMatch(/^sbx_/);
    const no = await authorize('5200828282828210');
    expect(no).toMatchObject({ approved: false, responseCode: '05', adviceCode: '03', reason: 'do_not_honor', replayed: false });
  });

  it('answers a repeated key with its first answer, even when the outcome would now differ', async () => {
    const reference = randomUUID();
    const first = await authorize('4000000000000051', { reference }); // outage: declined at first
    clock.advance(3 * 3_600_000); // the outage is over: a new key would be approved
    const again = await authorize('4000000000000051', { reference });
    expect(first).toMatchObject({ approved: false, responseCode: '91', replayed: false });
    expect(again).toEqual({ ...first, replayed: true });
    const later = await authorize('4000000000000051', { reference, idempotencyKey: `${reference}:2` });
    expect(later).toMatchObject({ approved: true, replayed: false });
    const rows = await f.db.select().from(processorCalls).where(eq(processorCalls.reference, reference));
    expect(rows.map((r) => [r.idempotencyKey, r.approved, r.operation])).toEqual([
      [`${reference}:1`, false, 'authorize'],
      [`${reference}:2`, true, 'authorize'],
    ]);
  });

  it('approves after N attempts of the same order, not of another', async () => {
    const reference = randomUUID();
    const results = [];
    for (let n = 1; n <= 3; n++) results.push((await authorize('4000000000000077', { reference, idempotencyKey: `${reference}:${n}` })).approved);
    expect(results).toEqual([false, false, true]);
    expect((await authorize('4000000000000077')).approved).toBe(false);
  });

  it('two concurrent calls with one new key get one answer', async () => {
    const reference = randomUUID();
    const [a, b] = await Promise.all([authorize('4111111111111111', { reference }), authorize('4111111111111111', { reference })]);
    expect(a.processorRef).toBe(b.processorRef);
    expect([a.replayed, b.replayed].filter(Boolean).length).toBeLessThanOrEqual(1);
    expect(await f.db.select().from(processorCalls).where(eq(processorCalls.reference, reference))).toHaveLength(1);
  });

  it('answers calls that arrive together as one group, each seeing the earlier calls of its order', async () => {
    const reference = randomUUID();
    const token = await f.tokenOf('4000000000000077'); // approve_after 2
    const call = (n: number) => sandbox.authorize({ idempotencyKey: `${reference}:${n}`, reference, merchantId: f.merchantId, cardToken: token, amount: 2500, currency: 'USD', isMIT: true });
    const results = await Promise.all([call(1), call(2), call(3), call(1)]);
    expect(results.map((r) => [r.approved, r.replayed])).toEqual([[false, false], [false, false], [true, false], [false, true]]);
    expect(await f.db.select().from(processorCalls).where(eq(processorCalls.reference, reference))).toHaveLength(3);
  });

  it('reads a token\'s card from the vault once, and the cards of a group together', async () => {
    const reads: string[][] = [];
    const vault = {
      reveal: f.vault.reveal,
      revealMany: (merchantId: string, tokens: string[]) => (reads.push(tokens), f.vault.revealMany(merchantId, tokens)),
    };
    const counted = createSandboxProcessor({ db: f.db, vault, clock });
    const tokens = [await f.tokenOf('4111111111111111'), await f.tokenOf('5200828282828210')];
    const call = (token: string) => {
      const reference = randomUUID();
      return counted.authorize({ idempotencyKey: `${reference}:1`, reference, merchantId: f.merchantId, cardToken: token, amount: 100, currency: 'USD', isMIT: true });
    };
    const first = await Promise.all([call(tokens[0]!), call(tokens[1]!), call(tokens[0]!)]);
    const again = await Promise.all([call(tokens[0]!), call(tokens[1]!)]);
    expect([...first, ...again].map((r) => r.approved)).toEqual([true, false, true, true, false]);
    expect(reads.map((t) => [...t].sort())).toEqual([[...tokens].sort()]);
  });

  it('declines a token the vault does not know', async () => {
    expect(await authorize('4111111111111111', { cardToken: 'tok_unknown' })).toMatchObject({ approved: false, responseCode: '14' });
  });

  it('refunds and voids an approval, idempotently', async () => {
    const reference = randomUUID();
    const charge = await authorize('4242424242424242', { reference, amount: 1000 });
    const refund = (key: string, amount: number) => sandbox.refund({ idempotencyKey: key, reference, processorRef: charge.processorRef, amount, currency: 'USD' });
    expect(await refund(`${reference}:r1`, 600)).toMatchObject({ approved: true, replayed: false });
    expect(await refund(`${reference}:r1`, 600)).toMatchObject({ approved: true, replayed: true });
    expect(await refund(`${reference}:r2`, 500)).toMatchObject({ approved: false, responseCode: '13' });
    expect(await refund(`${reference}:r3`, 400)).toMatchObject({ approved: true });
    // Refunded: a void is refused.
    expect(await sandbox.void({ idempotencyKey: `${reference}:v`, reference, processorRef: charge.processorRef, currency: 'USD' })).toMatchObject({ approved: false });

    const other = randomUUID();
    const second = await authorize('4242424242424242', { reference: other });
    const voidIt = () => sandbox.void({ idempotencyKey: `${other}:void`, reference: other, processorRef: second.processorRef, currency: 'USD' });
    expect(await voidIt()).toMatchObject({ approved: true, replayed: false });
    expect(await voidIt()).toMatchObject({ approved: true, replayed: true });
  });

  it('is chosen by the configuration', async () => {
    const p = createSandbox({ processor: { name: 'sandbox', latencyMs: 1 } }, { db: f.db, vault: f.vault, clock });
    expect(p.name).toBe('sandbox');
    const reference = randomUUID();
    const r = await p.authorize({ idempotencyKey: `${reference}:1`, reference, merchantId: f.merchantId, cardToken: await f.tokenOf('4111111111111111'), amount: 100, currency: 'USD', isMIT: true });
    expect(r).toMatchObject({ approved: true, replayed: false });
  });
});
