// Completing a CHALLENGE (POST /v1/orders/{orderSessionKey}/challenge): the customer's
// corrected data — a CVV or 3-D Secure result — goes to the processor in one attempt and the
// order ends APPROVED or DECLINED. The CVV is used for that call only: it is not stored,
// logged or echoed. A challenge not completed by the order's expiresAt ends EXPIRED.
import { randomUUID } from 'node:crypto';
import { RescuedError, type FieldError } from '../errors.ts';
import { assertTransition } from '../domain/index.ts';
import { findOrder, lockOrder, type OrderRow } from '../db/queries/find-order.ts';
import { insertAttempt, updateOrder } from '../db/queries/update-order.ts';
import { claimChallenge, releaseChallenge } from '../db/queries/claim-challenge.ts';
import { attemptNow } from './attempt.ts';
import { orderFacts } from '../processors/order-facts.ts';
import type { OrderDeps } from './deps.ts';

export interface ChallengeInput {
  cvv: string | undefined;
  threeDSecure: Record<string, unknown> | undefined;
}

type Obj = Record<string, unknown>;
const LEASE_MS = 60_000;

/** `cvv` (also `verificationValue`, `verification_value`) of 3–4 digits and/or a `threeDSecure` object. */
export function readChallengeBody(body: unknown): ChallengeInput {
  const b: Obj = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Obj) : {};
  const rawCvv = b.cvv ?? b.verificationValue ?? b.verification_value;
  const tds = b.threeDSecure;
  const errors: FieldError[] = [];
  // The message never repeats the value: it is a CVV.
  if (rawCvv !== undefined && rawCvv !== null && (typeof rawCvv !== 'string' || !/^\d{3,4}$/.test(rawCvv))) errors.push({ field: 'cvv', code: 'ERR_MODEL_FORMAT', message: 'must be a string of 3 or 4 digits' });
  if (tds !== undefined && tds !== null && (typeof tds !== 'object' || Array.isArray(tds))) errors.push({ field: 'threeDSecure', code: 'ERR_MODEL_TYPE', message: 'must be an object' });
  if ((rawCvv === undefined || rawCvv === null) && (tds === undefined || tds === null)) errors.push({ field: 'cvv', code: 'ERR_MODEL_REQUIRED', message: 'cvv or threeDSecure is required to complete a challenge' });
  if (errors.length) throw new RescuedError('ERR_MODEL_INVALID', undefined, errors);
  return { cvv: (rawCvv ?? undefined) as string | undefined, threeDSecure: (tds ?? undefined) as Obj | undefined };
}

async function expire(deps: OrderDeps, merchantId: string, id: string): Promise<never> {
  await deps.db.transaction(async (tx) => {
    const o = await lockOrder(tx, merchantId, id);
    if (o?.status !== 'CHALLENGE') return;
    assertTransition('CHALLENGE', 'EXPIRED');
    const now = deps.clock.now();
    await updateOrder(tx, id, { status: 'EXPIRED', statusReason: 'challenge_not_completed', updatedAt: now, finishedAt: now });
  });
  throw new RescuedError('ERR_API_CHALLENGE_EXPIRED');
}

export async function completeChallenge(deps: OrderDeps, merchantId: string, orderSessionKey: string, input: ChallengeInput): Promise<OrderRow> {
  const o = await findOrder(deps.db, merchantId, orderSessionKey);
  if (!o) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No such order.');
  if (o.status !== 'CHALLENGE') throw new RescuedError('ERR_API_CHALLENGE_CLOSED', `The order is ${o.status}, not waiting for a challenge.`);
  const now = deps.clock.now();
  if (o.expiresAt && o.expiresAt <= now) return expire(deps, merchantId, o.id);
  const owner = `challenge:${randomUUID()}`;
  const claim = await claimChallenge(deps.db, o.id, owner, now, new Date(now.getTime() + LEASE_MS));
  if (!claim) throw new RescuedError('ERR_API_CHALLENGE_BUSY');
  const attemptNo = claim.attemptCount + 1;
  const req = o.request as { transaction?: { timezoneUtcOffset?: number } };
  let a;
  try {
    a = await attemptNow(deps, {
      idempotencyKey: `${o.id}:${attemptNo}`, reference: o.id, merchantId, cardToken: o.cardToken, amount: o.amount, currency: o.currency,
      isMIT: false, timezoneUtcOffset: req.transaction?.timezoneUtcOffset ?? null, cvv: input.cvv, threeDSecure: input.threeDSecure,
      order: orderFacts(o.request),
    }, attemptNo, 'challenge_completed', o.cardBrand);
  } catch (err) {
    await releaseChallenge(deps.db, o.id, owner);
    throw err;
  }
  // The issuer asking again leaves the challenge open; any other answer closes it.
  const status = a.status === 'CHALLENGE' ? 'CHALLENGE' : a.status;
  const done = deps.clock.now();
  const change = {
    status, statusReason: a.reason, attemptCount: attemptNo, confirmationId: a.confirmationId, leaseOwner: null, leaseExpiresAt: null,
    updatedAt: done, finishedAt: status === 'CHALLENGE' ? null : done,
  };
  await deps.db.transaction(async (tx) => {
    if (status !== 'CHALLENGE') assertTransition('CHALLENGE', status);
    await insertAttempt(tx, { ...a.row, orderSessionKey: o.id, merchantId, cardToken: o.cardToken, amount: o.amount, currency: o.currency });
    await updateOrder(tx, o.id, change);
  });
  return { ...o, ...change };
}
