// The vault's retention rule (PCI DSS 3.2.1: keep cardholder data only as long as it is
// needed): a stored card that no open or recent order, no recent or unfinished attempt and
// no recent tokenization needs is deleted, in batches of short transactions. The test is in
// src/db/queries/purge-cards.ts; the purge (src/retention/) runs it with the other classes.
import type { Db } from '../db/client.ts';
import { countUnneededCards, deleteUnneededCards } from '../db/queries/purge-cards.ts';

export interface CardPurge {
  deleted: number;
  /** Transactions that deleted cards. */
  batches: number;
}

/** Cards the rule would delete now (`rescued purge --dry-run`). */
export const countCardsToDelete = (db: Db, cut: Date): Promise<number> => countUnneededCards(db, cut);

/** Deletes every card the rule no longer needs; `onBatch` after each transaction. */
export async function deleteUnneeded(db: Db, cut: Date, batchSize: number, onBatch: (n: number) => void | Promise<void> = () => {}, stop: () => boolean = () => false): Promise<CardPurge> {
  let after: string | undefined;
  let deleted = 0;
  let batches = 0;
  do {
    const from = after;
    const res = await db.transaction((tx) => deleteUnneededCards(tx, cut, from, batchSize));
    if (res.deleted > 0) batches++;
    deleted += res.deleted;
    await onBatch(res.deleted);
    after = res.lastId;
  } while (after && !stop());
  return { deleted, batches };
}
