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
  /** Card updates (src/domain/card-updates.ts): the credential charged now, every update, the wait's decline, what recovered it. */
  credential?: string | null;
  cardUpdates?: unknown;
  awaitingCard?: unknown;
  recoveredBy?: string | null;
  /** The cards the order moved off to the payer's next card (src/engine/cascade.ts): the whole new list. */
  endedCards?: unknown;
}

/** Applies the move and drops any lease: a moved order is no longer held by anyone. */
export async function moveOrder(tx: Tx, id: string, move: OrderMove, now: Date): Promise<void> {
  await tx
    .update(orders)
    .set({ ...move, leaseOwner: null, leaseExpiresAt: null, updatedAt: now })
    .where(eq(orders.id, id));
}
