// A small, hand-counted data set for the recovery report and the console: two merchants,
// fifteen orders in every state, attempts over a week, webhook deliveries in every state,
// a batch being rescued and a file being ingested. `EXPECTED` is counted by hand from the
// table below, not computed by the code under test.
import { randomBytes, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../../../src/db/client.ts';
import { attempts, batches, batchProgress, orders, processorAccounts, webhookDeliveries, webhookEndpoints, webhookEvents } from '../../../src/db/schema.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { key32 } from '../../helpers/keys.ts';

/** Noon UTC, so whole-day offsets stay on their intended UTC days. */
export const NOW = new Date('2026-11-20T12:00:00.000Z');
const H = 3_600_000;
const D = 24 * H;
const at = (ms: number) => new Date(NOW.getTime() + ms);
export const dayAt = (days: number) => at(days * D).toISOString().slice(0, 10);

type Status = 'APPROVED' | 'DECLINED' | 'CHALLENGE' | 'SUBMITTED' | 'PENDING' | 'PROCESSING' | 'EXPIRED' | 'CANCELLED';
//            merchant kind   status        brand         source      code                 amount cur    created   next       batch
const ORDERS: [string, 'MIT' | 'CIT', Status, string, string, string, number, string, number, number | null, string | null][] = [
  ['A', 'MIT', 'APPROVED', 'visa', 'iso8583', '51', 1000, 'USD', -10 * D, null, 'X'], // 1 (refunded 200)
  ['A', 'MIT', 'APPROVED', 'mastercard', 'iso8583', '51', 2500, 'USD', -9 * D, null, null], // 2: the order page's order
  ['A', 'MIT', 'EXPIRED', 'visa', 'iso8583', '51', 1500, 'USD', -8 * D, null, 'X'], // 3
  ['A', 'MIT', 'PENDING', 'visa', 'iso8583', '05', 3000, 'USD', -7 * D, 2 * D, 'X'], // 4
  ['A', 'MIT', 'PENDING', 'visa', 'iso8583', '05', 700, 'EUR', -6 * D, -1 * H, null], // 5
  ['A', 'MIT', 'CANCELLED', 'mastercard', 'iso8583', '05', 900, 'USD', -6 * D, null, null], // 6
  ['A', 'CIT', 'APPROVED', 'amex', 'iso8583', '05', 1200, 'EUR', -2 * D, null, null], // 7
  ['A', 'CIT', 'DECLINED', 'visa', 'iso8583', '14', 400, 'USD', -2 * D, null, null], // 8
  ['A', 'MIT', 'SUBMITTED', 'visa', 'iso8583', '51', 800, 'USD', -1 * H, -0.5 * H, null], // 9
  ['A', 'MIT', 'PROCESSING', 'mastercard', 'iso8583', '91', 650, 'USD', -1 * D, null, null], // 10
  ['A', 'CIT', 'CHALLENGE', 'visa', 'iso8583', 'N7', 300, 'USD', -1 * H, null, null], // 11
  ['B', 'MIT', 'APPROVED', 'visa', 'iso8583', '51', 5000, 'USD', -3 * D, null, 'Y'], // 12
  ['B', 'MIT', 'EXPIRED', 'discover', 'iso8583', '05', 100, 'USD', -3 * D, null, 'Y'], // 13
  ['B', 'MIT', 'PENDING', 'mastercard', 'stripe', 'insufficient_funds', 200, 'USD', -3 * D, null, null], // 14: parked (no next attempt)
  ['B', 'MIT', 'APPROVED', 'visa', 'iso8583', '51', 999, 'USD', -100 * D, null, null], // 15: outside 30 days
];

const f = (orders: number, recovered: number, lost: number, cancelled: number, open: number, recoveryRate: number | null) => ({ orders, recovered, lost, cancelled, open, recoveryRate });

export const EXPECTED = {
  ordersByState: { APPROVED: 5, DECLINED: 1, CHALLENGE: 1, SUBMITTED: 1, PENDING: 3, PROCESSING: 1, EXPIRED: 2, CANCELLED: 1 },
  overall: { ...f(15, 5, 3, 1, 6, 5 / 8), amounts: [{ currency: 'USD', recovered: 9499, refunded: 200, lost: 2000 }, { currency: 'EUR', recovered: 1200, refunded: 0, lost: 0 }] },
  overallSince30d: f(14, 4, 3, 1, 6, 4 / 7),
  byReason: [
    { reason: 'insufficient_funds', class: 'soft', ...f(7, 4, 1, 0, 2, 0.8) },
    { reason: 'do_not_honor', class: 'soft', ...f(5, 1, 1, 1, 2, 0.5) },
    { reason: 'cvv_failure', class: 'data', ...f(1, 0, 0, 0, 1, null) },
    { reason: 'invalid_card_number', class: 'hard', ...f(1, 0, 1, 0, 0, 0) },
    { reason: 'issuer_unavailable', class: 'soft', ...f(1, 0, 0, 0, 1, null) },
  ],
  byBrand: [
    { brand: 'visa', ...f(9, 3, 2, 0, 4, 0.6) },
    { brand: 'mastercard', ...f(4, 1, 0, 1, 2, 1) },
    { brand: 'amex', ...f(1, 1, 0, 0, 0, 1) },
    { brand: 'discover', ...f(1, 0, 1, 0, 0, 0) },
  ],
  byMerchant: { A: f(11, 3, 2, 1, 5, 0.6), B: f(4, 2, 1, 0, 1, 2 / 3) },
  /** Days relative to NOW → [done, approved, declined, planned]. */
  days: { [-100]: [1, 1, 0, 0], [-5]: [1, 0, 1, 0], [-3]: [1, 0, 1, 0], [-2]: [3, 1, 2, 0], [-1]: [2, 2, 0, 0], [0]: [1, 1, 0, 1], [2]: [0, 0, 0, 1] } as Record<number, [number, number, number, number]>,
  queue: { depth: 5, toPlan: 1, dueNow: 1, scheduled: 1, parked: 1, awaitingCard: 0, inFlight: 1, awaitingChallenge: 1, oldestDueAt: at(-1 * H).toISOString() },
  webhooks: { pending: 2, dueNow: 1, delivering: 1, dead: 1, disabledEndpoints: 1, oldestPendingAt: at(-3 * D).toISOString() },
  webhooksA: { pending: 1, dueNow: 1, delivering: 1, dead: 1, disabledEndpoints: 0, oldestPendingAt: at(-1 * D).toISOString() },
};

export interface Seeded {
  mids: { A: string; B: string };
  names: { A: string; B: string };
  /** orderSessionKey of each order, by its number in the table (1-based). */
  keys: string[];
  orderIds: string[];
  batchX: string;
  ingestingBatch: string;
  /** The credentials of merchant B (for API tests as B). */
  credsB: { clientId: string; clientSecret: string };
  credsA: { clientId: string; clientSecret: string };
}

export async function seedReportData(db: Db): Promise<Seeded> {
  const service = createMerchantService({ db, vault: keyRingFrom({ v1: key32() }, 'v1'), mode: 'sandbox' });
  const names = { A: 'Acme <Shop> & Co', B: 'Beta Store' };
  const a = await service.add({ name: names.A });
  const b = await service.add({ name: names.B });
  const ids = { A: (await service.byMid(a.mid)).id, B: (await service.byMid(b.mid)).id };
  const batchIds = { X: randomUUID(), Y: randomUUID() };
  await db.insert(batches).values([
    { id: batchIds.X, merchantId: ids.A, fileName: 'rebill-x.json', sha256: 'x'.repeat(64), status: 'partially_accepted', entryCount: 4, acceptedCount: 3, rejectedCount: 1, receivedAt: at(-10 * D), finishedAt: at(-10 * D) },
    { id: batchIds.Y, merchantId: ids.B, fileName: 'rebill-y.json', sha256: 'y'.repeat(64), status: 'accepted', entryCount: 2, acceptedCount: 2, rejectedCount: 0, receivedAt: at(-3 * D), finishedAt: at(-3 * D), resultsWrittenAt: at(-1 * H) },
  ]);
  const ingestingBatch = randomUUID();
  await db.insert(batchProgress).values({ batchId: ingestingBatch, merchantId: ids.A, fileName: 'big.json', entryCount: 1000, acceptedCount: 400, rejectedCount: 100, startedAt: at(-5 * 60_000) });
  const seq: Record<string, number> = { X: 0, Y: 0 };
  const rows = ORDERS.map(([m, kind, status, brand, source, code, amount, currency, created, next, batch], i) => ({
    id: randomUUID(), merchantId: ids[m as 'A' | 'B'], orderId: `ORD-${i + 1}-${randomBytes(3).toString('hex')}`, idempotencyKey: randomUUID(), kind, status, amount, currency,
    cardToken: `tok_${i}`, cardBrand: brand, cardBin: '411111', cardLast4: String(1000 + i), declineCode: code, declineSource: source, request: { transaction: {} },
    createdAt: at(created), updatedAt: at(created), nextAttemptAt: next === null ? null : at(next), batchId: batch ? batchIds[batch as 'X' | 'Y'] : null,
    sequenceNumber: batch ? ++seq[batch]! : null, refundedAmount: i === 0 ? 200 : 0, expiresAt: at(20 * D),
    statusReason: status === 'EXPIRED' ? 'deadline' : status === 'PENDING' && next === null ? 'unreconciled' : null,
    planReason: status === 'PENDING' && next !== null ? `retry: spaced daily (#${i + 1})` : status === 'EXPIRED' ? 'deadline reached' : null,
    finishedAt: ['APPROVED', 'DECLINED', 'EXPIRED', 'CANCELLED'].includes(status) ? at(created + H) : null,
  }));
  await db.insert(orders).values(rows);
  const keys = rows.map((r) => r.id);
  const [account] = await db.insert(processorAccounts).values({ merchantId: ids.A, type: 'stripe', label: 'main-stripe', credentialsSealed: 'sealed', isDefault: true }).returning();
  const attempt = (order: number, no: number, status: 'approved' | 'declined', startedMs: number, extra: Partial<typeof attempts.$inferInsert> = {}) => ({
    orderSessionKey: keys[order - 1]!, merchantId: rows[order - 1]!.merchantId, cardToken: `tok_${order - 1}`, attemptNo: no, idempotencyKey: `${keys[order - 1]}:${no}`,
    status, amount: rows[order - 1]!.amount, currency: rows[order - 1]!.currency, startedAt: at(startedMs), finishedAt: at(startedMs + 1000),
    responseCode: status === 'approved' ? '00' : '51', reason: status === 'approved' ? null : 'insufficient_funds', declineClass: status === 'approved' ? null : 'soft', ...extra,
  });
  await db.insert(attempts).values([
    attempt(1, 1, 'declined', -3 * D, { planReason: 'payday: the 1st' }),
    attempt(1, 2, 'approved', -1 * D),
    attempt(2, 1, 'declined', -2 * D, { adviceCode: '24', planReason: 'first try after the decline', accountId: account!.id, route: 'default', rawCode: 'card_declined/insufficient_funds', rawMessage: 'Your card has <insufficient> funds.', networkTransactionId: 'NTID-2-1', latencyMs: 321 }),
    attempt(2, 2, 'approved', -1 * D, { planReason: 'MAC 24: retry after 1 day', accountId: account!.id, route: 'default', rawCode: 'succeeded', networkTransactionId: 'NTID-2-2' }),
    attempt(3, 1, 'declined', -5 * D),
    attempt(3, 2, 'declined', -2 * D),
    attempt(7, 1, 'approved', -2 * D),
    attempt(12, 1, 'approved', -2 * H),
    attempt(15, 1, 'approved', -100 * D),
  ]);
  const endpoints = await db.select().from(webhookEndpoints);
  const endpointOf = (m: 'A' | 'B') => endpoints.find((e) => e.merchantId === ids[m])!.id;
  await db.update(webhookEndpoints).set({ enabled: false, disabledReason: '410' }).where(eq(webhookEndpoints.merchantId, ids.B));
  const event = (m: 'A' | 'B', order: number, type: string, createdMs: number) => ({ id: `msg_${randomBytes(16).toString('hex')}`, merchantId: ids[m], orderSessionKey: keys[order - 1]!, type, payload: {}, createdAt: at(createdMs) });
  const events = [event('A', 1, 'order.completed', -1 * D), event('A', 3, 'order.expired', -2 * D), event('A', 2, 'order.completed', -1 * D), event('B', 12, 'order.completed', -3 * D), event('A', 7, 'order.completed', -2 * D)];
  await db.insert(webhookEvents).values(events);
  const delivery = (e: number, m: 'A' | 'B', status: 'pending' | 'delivering' | 'delivered' | 'dead', extra: Partial<typeof webhookDeliveries.$inferInsert>) => ({ eventId: events[e]!.id, endpointId: endpointOf(m), status, createdAt: events[e]!.createdAt, ...extra });
  await db.insert(webhookDeliveries).values([
    delivery(0, 'A', 'delivered', { attemptCount: 1, lastStatusCode: 200, finishedAt: at(-1 * D) }),
    delivery(1, 'A', 'dead', { attemptCount: 8, lastStatusCode: 500 }),
    delivery(2, 'A', 'pending', { attemptCount: 1, lastStatusCode: 503, nextAttemptAt: at(-60_000) }),
    delivery(3, 'B', 'pending', { attemptCount: 2, lastError: 'ECONNREFUSED', nextAttemptAt: at(H) }),
    delivery(4, 'A', 'delivering', { attemptCount: 0, leaseOwner: 'x', leaseExpiresAt: at(60_000) }),
  ]);
  return {
    mids: { A: a.mid, B: b.mid }, names, keys, orderIds: rows.map((r) => r.orderId), batchX: batchIds.X, ingestingBatch,
    credsA: { clientId: a.clientId, clientSecret: a.clientSecret }, credsB: { clientId: b.clientId, clientSecret: b.clientSecret },
  };
}
