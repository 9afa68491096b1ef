// Card updates on an order (docs/engine.md "Card updates"): what the order's columns
// `credential`, `card_updates`, `awaiting_card` and `recovered_by` hold, decoded in one place
// for the engine, the order views, the results file and the report.
//
// A credential is the key an order is charged and counted under. The order's own card is its
// vault token (orders.card_token); a card the merchant sends later is that card's vault token;
// a card the gateway's account updater changed is `<token>~au:<what changed>`: the same vault
// token is charged (the gateway holds the new details), but the key is distinct, so Visa's and
// Mastercard's counters of the updated card start on their own, as the networks count a new
// card (or new expiry) apart from the old one.

/** Where an updated card came from. */
export const CARD_UPDATE_SOURCES = ['merchant', 'account_updater', 'other_card'] as const;
export type CardUpdateSource = (typeof CARD_UPDATE_SOURCES)[number];

/** What recovered an APPROVED order. */
export const RECOVERY_CAUSES = ['retry', 'merchant_update', 'account_updater', 'other_card'] as const;
export type RecoveryCause = (typeof RECOVERY_CAUSES)[number];

/** The planner's reason while an order waits for an updated card (orders.plan_reason). */
export const AWAITING_UPDATED_CARD = 'awaiting_updated_card';

/** One card update, as orders.card_updates keeps it (oldest first). Never a card number. */
export interface CardUpdate {
  /** ISO time it was recorded. */
  at: string;
  source: CardUpdateSource;
  /** The key the order is charged and counted under from then on ('' for `closed`: nothing changed). */
  credential: string;
  /** The vault token charged under it. */
  vaultToken: string;
  /** `card`: a new card from the merchant; the account updater's kinds otherwise. */
  kind: 'card' | 'expiry' | 'replacement' | 'closed';
  bin?: string | null;
  last4?: string | null;
  brand?: string | null;
  expMonth?: number | null;
  expYear?: number | null;
  /** The gateway's reference of the updated stored card, when it has one. */
  gatewayReference?: string | null;
  /** Attempts the order had made when the update arrived. */
  afterAttempts: number;
}

/** The decline that made an order wait for an updated card (orders.awaiting_card). */
export interface AwaitingCard {
  /** ISO time the wait began. */
  since: string;
  /** The order's end if no card comes: the stop it would have had (e.g. `hard_decline: expired_card`). */
  reason: string;
  decline: { reason: string; class: string; code: string | null; source: string | null; adviceCode: string | null };
}

export function cardUpdatesOf(stored: unknown): CardUpdate[] {
  const v = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  return Array.isArray(v) ? (v as CardUpdate[]) : [];
}

export function awaitingOf(stored: unknown): AwaitingCard | null {
  const v = typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored;
  return v && typeof v === 'object' ? (v as AwaitingCard) : null;
}

/** The latest update that changed the credential (a `closed` answer changes nothing). */
export function currentUpdate(stored: unknown): CardUpdate | undefined {
  return cardUpdatesOf(stored).filter((u) => u.kind !== 'closed').at(-1);
}

/** The key an order is charged and counted under now. */
export const chargeKey = (o: { credential: string | null; cardToken: string }): string => o.credential ?? o.cardToken;

/** The vault token an order's next attempt charges. */
export function chargeToken(o: { credential: string | null; cardToken: string; cardUpdates: unknown }): string {
  if (!o.credential) return o.cardToken;
  return currentUpdate(o.cardUpdates)?.vaultToken ?? o.cardToken;
}

/** The brand of the credential charged now (a merchant's new card may be another brand). */
export function chargeBrand(o: { credential: string | null; cardBrand: string | null; cardUpdates: unknown }): string | null {
  if (!o.credential) return o.cardBrand;
  return currentUpdate(o.cardUpdates)?.brand ?? o.cardBrand;
}

/** The account updater's credential key: stable for one updated card, so two orders of it share its counters. */
export function updaterCredential(baseToken: string, u: { kind: string; gatewayReference?: string | undefined; last4?: string | undefined; expMonth?: number | undefined; expYear?: number | undefined }): string {
  const base = baseToken.split('~au:')[0]!;
  const what = u.gatewayReference ?? `${u.kind}:${u.last4 ?? ''}:${u.expYear ?? ''}-${u.expMonth ?? ''}`;
  return `${base}~au:${what}`.slice(0, 200);
}

/** What recovered an order approved on `credential` (the attempt's card_token). */
export function recoveryCause(o: { cardToken: string; cardUpdates: unknown }, credential: string): RecoveryCause {
  if (credential === o.cardToken) return 'retry';
  const u = cardUpdatesOf(o.cardUpdates).filter((x) => x.credential === credential).at(-1);
  if (!u) return 'retry';
  return u.source === 'merchant' ? 'merchant_update' : u.source;
}

/** The planner's reason for the first attempt on an updated card (orders.plan_reason, attempts.plan_reason). */
export const CARD_UPDATED = 'card_updated';
