// A challenge completion takes the order's lease, so two completions of one challenge never
// both reach the processor; the engine never claims CHALLENGE orders.
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../client.ts';
import { orders } from '../schema.ts';

export async function claimChallenge(db: Db, orderSessionKey: string, owner: string, now: Date, until: Date): Promise<{ attemptCount: number } | undefined> {
  const [row] = await db
    .update(orders)
    .set({ leaseOwner: owner, leaseExpiresAt: until })
    .where(and(eq(orders.id, orderSessionKey), eq(orders.status, 'CHALLENGE'), or(isNull(orders.leaseExpiresAt), lt(orders.leaseExpiresAt, now))))
    .returning({ attemptCount: orders.attemptCount });
  return row;
}

export async function releaseChallenge(db: Db, orderSessionKey: string, owner: string): Promise<void> {
  await db.update(orders).set({ leaseOwner: null, leaseExpiresAt: null }).where(and(eq(orders.id, orderSessionKey), eq(orders.leaseOwner, owner)));
}
