// Moves of one order between statuses, inside the caller's transaction. The caller has
// checked the move with assertTransition and holds the row lock.
import { eq } from 'drizzle-orm';
import type { DbOrTx as Tx } from '../client.ts';
import { orders } from '../schema.ts';


export interface OrderMove {
  status: string;
  statusReason?: string | null;
  planReason?: string | null;
  nextAttemptAt?: Date | null;
  attemptCount?: number;
  confirmationId?: string | null;
  finishedAt?: Date | null;
  /**
   * The cascade's card switch (src/engine/cascade.ts): the order's card becomes the payer's
   * next card; `endedCards` is the whole new list, `originalCardToken` the card of the
   * merchant's decline.
   */
  cardToken?: string;
  cardBin?: string | null;
  cardLast4?: string | null;
  cardBrand?: string | null;
  endedCards?: unknown;
  originalCardToken?: string | null;
}

/** Applies the move and drops any lease: a moved order is no longer held by anyone. */
export async function moveOrder(tx: Tx, id: string, move: OrderMove, now: Date): Promise<void> {
  await tx
    .update(orders)
    .set({ ...move, leaseOwner: null, leaseExpiresAt: null, updatedAt: now })
    .where(eq(orders.id, id));
}
