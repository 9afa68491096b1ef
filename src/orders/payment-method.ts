// An updated card from the merchant (docs/api.md "Updated card"): POST
// /v1/orders/{orderSessionKey}/payment-method and a batch file's update entry attach a new
// credential to an open MIT order, also one waiting for an updated card or still being
// retried. Its first attempt is due at once (the engine's claim checks the networks' rules for
// the new credential, counted on its own); the cards the order had before are never charged
// again for it. A final order is 409, another merchant's 404, a card that fails the vault's
// checks the vault's field errors; in every refusal nothing changes.
import { RescuedError, type FieldError } from '../errors.ts';
import { assertTransition, isStatus } from '../domain/index.ts';
import { CARD_UPDATED, cardUpdatesOf, type CardUpdate } from '../domain/card-updates.ts';
import { validateTokenize } from '../domain/index.ts';
import type { DbOrTx as Tx } from '../db/client.ts';
import { findOrder, lockOrder, type OrderRow } from '../db/queries/find-order.ts';
import { findOrderByOrderId } from '../db/queries/find-order-by-id.ts';
import { updateOrder, type OrderChange } from '../db/queries/update-order.ts';
import { enqueueOrderEvent } from '../webhooks/outbox.ts';
import type { CardInput } from '../vault/card-checks.ts';
import type { Vault, VaultCard } from '../vault/service.ts';
import type { OrderDeps } from './deps.ts';

/** The vault calls a card update needs. */
export type CardVault = Pick<Vault, 'tokenize' | 'find'>;

/** The order: by orderSessionKey (the API) or by the merchant's orderId (a batch entry may use either). */
export type OrderRef = { orderSessionKey: string } | { orderId: string };

/** Statuses in which the engine still charges the order. */
const OPEN = new Set(['SUBMITTED', 'PENDING', 'PROCESSING']);

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** The card of a body in the tokenize shape, as /v1/tokenize reads it. */
function cardInput(body: unknown): CardInput {
  const cc = obj(obj(obj(body).payment_method).credit_card);
  return { number: cc.number, month: cc.month, year: cc.year, cvv: cc.verification_value, firstName: cc.first_name, lastName: cc.last_name };
}

async function findRef(db: Tx, merchantId: string, ref: OrderRef, lock = false): Promise<OrderRow | undefined> {
  if ('orderId' in ref) {
    const o = await findOrderByOrderId(db, merchantId, ref.orderId);
    return o && lock ? lockOrder(db, merchantId, o.id) : o;
  }
  return lock ? lockOrder(db, merchantId, ref.orderSessionKey) : findOrder(db, merchantId, ref.orderSessionKey);
}

function assertOpen(o: OrderRow | undefined): asserts o is OrderRow {
  if (!o) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No such order.');
  if (o.kind !== 'MIT' || !OPEN.has(o.status)) throw new RescuedError('ERR_API_ORDER_CLOSED', `The order is ${o.status}${o.kind !== 'MIT' ? ' (a CIT order)' : ''}: its card can no longer be updated.`);
}

/** The body's card: a token of this merchant, or a card checked and stored by the vault as /v1/tokenize does. */
async function cardOf(vault: CardVault, merchantId: string, body: unknown): Promise<VaultCard> {
  const token = obj(body).token;
  if (typeof token === 'string' && obj(body).payment_method === undefined) {
    const card = await vault.find(merchantId, token);
    if (!card) throw new RescuedError('ERR_VAULT_TOKEN_UNKNOWN', undefined, [{ field: 'token', code: 'ERR_VAULT_TOKEN_UNKNOWN', message: 'token is not a card token of this merchant (tokenize the card first).' }]);
    return card;
  }
  const schema = validateTokenize(body);
  return (await vault.tokenize(merchantId, cardInput(body), undefined, schema.ok ? [] : schema.errors)).card;
}

function alreadyUsed(o: OrderRow, card: VaultCard): FieldError[] {
  const used = new Set([o.cardToken, ...cardUpdatesOf(o.cardUpdates).map((u) => u.vaultToken)]);
  if (!used.has(card.token)) return [];
  return [{ field: 'token', code: 'ERR_API_CARD_ALREADY_USED', message: 'this card was already charged for the order; send the customer\'s new card.' }];
}

/** Attaches `body`'s card to the open order; returns the order as it now stands. */
export async function attachPaymentMethod(deps: Pick<OrderDeps, 'db' | 'clock' | 'mode'>, vault: CardVault, merchantId: string, ref: OrderRef, body: unknown): Promise<OrderRow> {
  // Checked before the vault is touched: a refused order stores no card.
  assertOpen(await findRef(deps.db, merchantId, ref));
  const card = await cardOf(vault, merchantId, body);
  return deps.db.transaction(async (tx) => {
    const o = await findRef(tx, merchantId, ref, true);
    assertOpen(o);
    const used = alreadyUsed(o, card);
    if (used.length) throw new RescuedError('ERR_API_CARD_ALREADY_USED', undefined, used);
    const now = deps.clock.now();
    const entry: CardUpdate = {
      at: now.toISOString(), source: 'merchant', kind: 'card', credential: card.token, vaultToken: card.token, afterAttempts: o.attemptCount,
      bin: card.bin, last4: card.last4, brand: card.brand, expMonth: card.month, expYear: card.year,
    };
    const change: OrderChange = { credential: card.token, cardUpdates: [...cardUpdatesOf(o.cardUpdates), entry], updatedAt: now };
    // In flight: the attempt finishes on the old card, and the engine makes the new card's first
    // attempt next (recorder.ts). Otherwise the new card's first attempt is due now.
    if (o.status !== 'PROCESSING') {
      if (isStatus(o.status) && o.status !== 'PENDING') assertTransition(o.status, 'PENDING');
      Object.assign(change, { status: 'PENDING', statusReason: null, planReason: CARD_UPDATED, nextAttemptAt: now });
    }
    await updateOrder(tx, o.id, change);
    await enqueueOrderEvent(tx, {
      type: 'order.card_updated', merchantId, orderSessionKey: o.id, orderId: o.orderId, status: change.status ?? o.status, reason: 'merchant_update',
      amount: o.amount, currency: o.currency, attempts: o.attemptCount, confirmationId: null, isTestMode: deps.mode === 'sandbox', at: now,
      card: { source: 'merchant', kind: 'card', bin: card.bin, last4: card.last4, brand: card.brand, expMonth: card.month, expYear: card.year },
    });
    return { ...o, ...change } as OrderRow;
  });
}
