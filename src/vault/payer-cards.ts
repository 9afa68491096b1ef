// A payer's stored cards at a merchant: the cards an order may continue on when its own card
// ends hard (the cascade, docs/engine.md "The payer's other cards"). A card belongs to the
// payer it was last tokenized for (`POST /v1/tokenize` with `payer.id`); an order may also list
// the payer's other tokens itself (`payer.otherCardTokens`). Only what may be shown leaves
// here: token, first six, last four, expiry, brand — never the number.
import type { Db } from '../db/client.ts';
import { linkCardToPayer, listPayerCards, type PayerCardRow } from '../db/queries/payer-cards.ts';

export type PayerCard = PayerCardRow;

export interface EligibleQuery {
  merchantId: string;
  /** The merchant's id of the payer (the order's payer.id). */
  payerId?: string | undefined;
  /** Tokens the order lists (payer.otherCardTokens): tried first, in their order. */
  listed?: readonly string[] | undefined;
  /** Tokens not eligible: the order's own card and every card it already ended on. */
  exclude?: readonly string[] | undefined;
  /** A card whose expiry month ended before `now` (UTC) is not eligible. */
  now: Date;
  limit?: number;
}

/** A payer id as stored: trimmed; empty or NA (the spec's "not available") is no payer. */
export function payerIdOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.trim();
  return id === '' || id.toUpperCase() === 'NA' ? undefined : id;
}

/**
 * The payer's eligible cards at the merchant: those the order lists, in their order, then the
 * ones tokenized for the payer, most recently tokenized first; excluded and expired cards
 * left out, and never another merchant's card.
 */
export async function eligiblePayerCards(db: Db, q: EligibleQuery): Promise<PayerCard[]> {
  const payerId = payerIdOf(q.payerId);
  const listed = [...new Set(q.listed ?? [])];
  if (!payerId && listed.length === 0) return [];
  return listPayerCards(db, {
    merchantId: q.merchantId,
    payerId,
    listed,
    exclude: [...new Set(q.exclude ?? [])],
    notExpiredBefore: { year: q.now.getUTCFullYear(), month: q.now.getUTCMonth() + 1 },
    ...(q.limit !== undefined ? { limit: q.limit } : {}),
  });
}

/** Names the payer on a card of the merchant (tokenize with payer.id); false for an unknown token. */
export async function linkPayer(db: Db, merchantId: string, token: string, payerIdText: unknown): Promise<boolean> {
  const payerId = payerIdOf(payerIdText);
  if (!payerId) return false;
  return linkCardToPayer(db, merchantId, token, payerId);
}
