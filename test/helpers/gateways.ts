// Three local gateways for end-to-end tests of the processor router (Stripe, the HTTP bridge,
// NMI), what each has charged and what each has been asked, by order; and the orders' routing
// hints (additionalFields processorAccount, transaction.responseCodeSource / processorName),
// as batch entries and as rows written straight into the database.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../src/db/client.ts';
import { orders } from '../../src/db/schema.ts';
import type { Route } from '../../src/processors/types.ts';
import type { TestCard } from '../../src/vault/test-cards.ts';
import { startBridgeFake, type BridgeBehaviour, type BridgeFake } from '../fakes/http/server.ts';
import { startNmiFake, type NmiBehaviour, type NmiFake } from '../fakes/nmi/server.ts';
import { startStripeFake, type StripeBehaviour, type StripeFake } from '../fakes/stripe/server.ts';

export type GatewayType = 'stripe' | 'http' | 'nmi';
export const GATEWAY_TYPES: GatewayType[] = ['stripe', 'http', 'nmi'];

/** A charge a fake made: the money actually taken, under the attempt key it was sent with. */
export interface FakeCharge {
  type: GatewayType;
  /** `<orderSessionKey>:<attemptNo>` as the fake recorded it (Stripe's Idempotency-Key, the bridge's key, NMI's orderid). */
  key: string;
  /** The gateway's reference of the charge (the attempt's processorRef). */
  ref: string;
}

export interface Gateways {
  stripe: StripeFake;
  bridge: BridgeFake;
  nmi: NmiFake;
  /** processor.gatewayUrls */
  urls: Record<GatewayType, string>;
  /**
   * Every fake holds every authorization unanswered until `answer` lets it go, then approves
   * it: a test kills the daemon at a moment it chose (calls received, none answered), not
   * within a window of time.
   */
  holdAll(): void;
  /** Lets the `n` oldest authorizations held at `type` be answered (approved). */
  answer(type: GatewayType, n: number): void;
  /** Every fake approves at once, and the authorizations held are answered. */
  approveAll(): void;
  /** Every charge at the three fakes, by the order (orderSessionKey) its key names. */
  charges(): Map<string, FakeCharge[]>;
  /** Authorizations received per fake for these orders, and those already answered with a charge. */
  calls(ids: ReadonlySet<string>): Record<GatewayType, { received: number; charged: number }>;
  /** The gateways and attempt keys every authorization received was sent to, by order: `<type> <key>`. */
  authorizations(): Map<string, Set<string>>;
  /** NMI sales received per attempt key: NMI has no idempotency key, so a second one charges twice. */
  nmiSalesByKey(): Map<string, number>;
  /** NMI Query API look-ups by order id (attempt key). */
  nmiLookups(): string[];
  close(): Promise<void>;
}

const orderOf = (key: string) => key.split(':')[0]!;

export async function startGateways(): Promise<Gateways> {
  const [stripe, bridge, nmi] = await Promise.all([startStripeFake(), startBridgeFake(), startNmiFake()]);
  const stripeCalls = () => stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
  const bridgeCalls = () => bridge.requests.filter((r) => r.signed && r.body.operation === 'authorize');
  const nmiSales = () => nmi.requests.filter((r) => r.path === '/api/transact.php' && r.body.type === 'sale');
  const stripeOrder = (body: Record<string, unknown>) => (body.metadata as Record<string, string> | undefined)?.rescued_order ?? '';
  const held: Record<GatewayType, Array<() => void>> = { stripe: [], http: [], nmi: [] };
  const holdAt = (type: GatewayType) => () => new Promise<void>((resolve) => held[type].push(resolve));
  const answer = (type: GatewayType, n: number) => {
    for (const go of held[type].splice(0, n)) go();
  };
  const list = (): FakeCharge[] => [
    ...[...stripe.charges].map(([ref, c]) => ({ type: 'stripe' as const, key: c.key, ref })),
    ...[...bridge.charges].map(([ref, c]) => ({ type: 'http' as const, key: c.key, ref })),
    ...[...nmi.charges].map(([ref, c]) => ({ type: 'nmi' as const, key: c.orderid, ref })),
  ];
  return {
    stripe,
    bridge,
    nmi,
    urls: { stripe: stripe.url, http: bridge.url, nmi: nmi.url },
    holdAll() {
      stripe.fallback({ kind: 'hold', released: holdAt('stripe') } satisfies StripeBehaviour);
      bridge.fallback({ kind: 'hold', released: holdAt('http') } satisfies BridgeBehaviour);
      nmi.fallback({ kind: 'hold', released: holdAt('nmi') } satisfies NmiBehaviour);
    },
    answer,
    approveAll() {
      stripe.fallback({ kind: 'approve' });
      bridge.fallback({ kind: 'approve' });
      nmi.fallback({ kind: 'approve' });
      for (const type of GATEWAY_TYPES) answer(type, Infinity);
    },
    charges() {
      const by = new Map<string, FakeCharge[]>();
      for (const c of list()) by.set(orderOf(c.key), [...(by.get(orderOf(c.key)) ?? []), c]);
      return by;
    },
    calls(ids) {
      const charged = (type: GatewayType) => list().filter((c) => c.type === type && ids.has(orderOf(c.key))).length;
      return {
        stripe: { received: stripeCalls().filter((r) => ids.has(stripeOrder(r.body))).length, charged: charged('stripe') },
        http: { received: bridgeCalls().filter((r) => ids.has(r.body.reference as string)).length, charged: charged('http') },
        nmi: { received: nmiSales().filter((r) => ids.has(orderOf(r.body.orderid ?? ''))).length, charged: charged('nmi') },
      };
    },
    authorizations() {
      const by = new Map<string, Set<string>>();
      const add = (type: GatewayType, key: string) => by.set(orderOf(key), (by.get(orderOf(key)) ?? new Set()).add(`${type} ${key}`));
      for (const r of stripeCalls()) add('stripe', String(r.headers['idempotency-key'] ?? ''));
      for (const r of bridgeCalls()) add('http', r.body.idempotencyKey as string);
      for (const r of nmiSales()) add('nmi', r.body.orderid ?? '');
      return by;
    },
    nmiSalesByKey() {
      const by = new Map<string, number>();
      for (const r of nmiSales()) by.set(r.body.orderid ?? '', (by.get(r.body.orderid ?? '') ?? 0) + 1);
      return by;
    },
    nmiLookups: () => nmi.requests.filter((r) => r.path === '/api/query.php').map((r) => r.body.order_id ?? ''),
    close: async () => void (await Promise.all([stripe.close(), bridge.close(), nmi.close()])),
  };
}

/** How an order names its account, and where it must be charged because of it. */
export interface Routing {
  /** additionalFields processorAccount */
  label?: string;
  /** transaction.responseCodeSource (default NA) and its code. */
  source?: string;
  code?: string;
  processorName?: string;
  expect: { type: GatewayType; route: Route };
}

/**
 * Nine orders covering every rule of routing.ts for a merchant whose accounts are labelled
 * stripe-main, bridge (the default) and nmi-main: a named account wins over the decliner, the
 * decliner (by responseCodeSource, else processorName, also when the merchant has no account
 * of the gateway responseCodeSource names) over the default; a network or NA falls to the
 * default. Three orders per account.
 */
export const ROUTINGS: Routing[] = [
  { label: 'nmi-main', source: 'stripe', code: 'insufficient_funds', expect: { type: 'nmi', route: 'explicit' } },
  { label: 'stripe-main', expect: { type: 'stripe', route: 'explicit' } },
  { label: 'bridge', source: 'NMI', code: '202', expect: { type: 'http', route: 'explicit' } },
  { source: 'Stripe', code: 'do_not_honor', expect: { type: 'stripe', route: 'decliner' } },
  { source: 'nmi', code: '201', expect: { type: 'nmi', route: 'decliner' } },
  { source: 'NA', processorName: 'Network Merchants', expect: { type: 'nmi', route: 'decliner' } },
  { expect: { type: 'http', route: 'default' } },
  { source: 'visa', code: '05', expect: { type: 'http', route: 'default' } },
  { source: 'adyen', code: 'Not enough balance', processorName: 'Stripe', expect: { type: 'stripe', route: 'decliner' } },
];

const TEMPLATE = JSON.parse(readFileSync(join(import.meta.dirname, '../../samples/requests/evaluate-mit.json'), 'utf8')) as Record<string, unknown>;

/** A batch entry (samples/requests/evaluate-mit.json) for a vault token of `card`, routed as `r`. */
export function batchEntry(i: number, r: Routing, o: { mid: string; siteId: string; orderId: string; card: TestCard; token: string }): Record<string, unknown> {
  const e = structuredClone(TEMPLATE);
  const tx = e.transaction as Record<string, unknown>;
  const pm = e.paymentMethod as Record<string, unknown>;
  delete e.expiryDateUtc; // the header's
  Object.assign(e, { sequenceNumber: i + 1, mid: o.mid, siteId: o.siteId, orderId: o.orderId, idempotencyKey: randomUUID(), additionalFields: r.label ? [{ key: 'processorAccount', value: r.label }, { key: 'campaign', value: 'spring' }] : [] });
  Object.assign(tx, { id: `ch_${o.orderId}`, amount: 1000 + i, responseCode: r.code ?? '51', responseCodeSource: r.source ?? 'NA', processorName: r.processorName ?? r.source ?? 'NA' });
  if (!r.processorName && !r.source) delete tx.processorName;
  Object.assign(pm, { cardNumber: o.token, token: true, cardBrand: o.card.brand, cardBinNumber: o.card.number.slice(0, 6), cardLast4Digits: o.card.number.slice(-4), expirationMonth: 12, expirationYear: 2035 });
  return e;
}

export interface DirectOrder {
  merchantId: string;
  routing: Routing;
  card: TestCard;
  token: string;
  expiresAt: Date;
}

/** MIT orders due now (PENDING), as intake and the planner would leave them; returns their ids. */
export async function insertRoutedOrders(db: Db, specs: DirectOrder[]): Promise<string[]> {
  const now = Date.now();
  const rows = specs.map((s, i) => {
    const orderId = `ORD-gw-${randomUUID().slice(0, 13)}`;
    const r = s.routing;
    const request = {
      orderId, isMIT: true, isRecurring: true,
      transaction: { responseCode: r.code ?? '51', responseCodeSource: r.source ?? 'NA', ...(r.processorName ? { processorName: r.processorName } : {}), timezoneUtcOffset: 0, amount: 2000 + i, currency: 'USD' },
      paymentMethod: { cardNumber: s.token, token: true, cardBrand: s.card.brand, expirationMonth: 12, expirationYear: 2035, holderName: 'Test Payer' },
      subscription: { schemeTransactionId: '483297487231504' },
      additionalFields: r.label ? [{ key: 'processorAccount', value: r.label }] : [],
    };
    return {
      id: randomUUID(), merchantId: s.merchantId, orderId, idempotencyKey: randomUUID(), kind: 'MIT' as const, status: 'PENDING' as const,
      amount: 2000 + i, currency: 'USD', cardToken: s.token, cardBrand: s.card.brand, cardBin: s.card.number.slice(0, 6), cardLast4: s.card.number.slice(-4),
      expiresAt: s.expiresAt, declineCode: r.code ?? '51', declineSource: r.source ?? 'NA', request,
      nextAttemptAt: new Date(now - 1000), createdAt: new Date(now - 86_400_000), updatedAt: new Date(now - 86_400_000),
    };
  });
  await db.insert(orders).values(rows);
  return rows.map((r) => r.id);
}
