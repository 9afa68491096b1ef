// One attempt per card at a time (claim.ts): how long an order waits when another attempt on
// its card is in flight, and the wake-up that ends the wait once that attempt is answered.
import type { DbOrTx } from '../db/client.ts';
import { wakeCardWaiters } from '../db/queries/wake-card-waiters.ts';

/**
 * How long an order waits when another attempt on its card is in flight. The answer to the
 * first (a MAC 03/21, a MAC 24–30 delay, a category 1 code, the decline that fills a cap)
 * decides whether the next may go at all, and two sent together cannot hear it. The recorder
 * wakes the card's waiting orders as soon as the answer is stored (wakeAfterAnswers); the
 * minute is the fallback when that wake-up is lost (a crash, another instance's answer).
 */
export const CARD_BUSY_MS = 60_000;

/**
 * Makes the orders of the answered cards that wait within CARD_BUSY_MS due now: the claim
 * then checks each against the answer. An optimisation only, so a failure is not an error:
 * the orders still come due at the end of their minute. `cards` are keyed as the windows
 * count them (chargeKey: the credential, else the card token).
 */
export async function wakeAfterAnswers(db: DbOrTx, cards: readonly { merchantId: string; cardToken: string }[], now: Date): Promise<void> {
  await wakeCardWaiters(db, cards, now, new Date(now.getTime() + CARD_BUSY_MS)).catch(() => 0);
}

/**
 * The claim's second look, once it has committed orders as waiting for a busy card: the
 * answer's own wake-up may have come while they were still PROCESSING under the claim and
 * found nothing to wake. Those whose card has no attempt in flight since `inFlightSince` (the
 * lease's start) any more are made due now. An optimisation too: a failure leaves the minute.
 */
export async function wakeIfIdle(db: DbOrTx, cards: readonly { merchantId: string; cardToken: string }[], now: Date, inFlightSince: Date): Promise<void> {
  await wakeCardWaiters(db, cards, now, new Date(now.getTime() + CARD_BUSY_MS), inFlightSince).catch(() => 0);
}
