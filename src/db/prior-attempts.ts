// The orders.prior_attempts column: the merchant's own earlier attempts on an order, as the card
// networks count them, in a compact form written once at intake (ONE COPY per chunk of a batch
// file: no second table, no second statement) and read whole by the card's windows. Each
// attempt is [timestampUtc, responseCode, merchantAdviceCode or null], oldest first; an order
// without any stores null.

export type StoredPriorAttempt = [at: string, responseCode: string, adviceCode: string | null];

/** The merchant's attempts (as validated) for the column; null when there are none. */
export function encodePriorAttempts(list: readonly { timestampUtc: string; responseCode: string; merchantAdviceCode?: string | undefined }[] | undefined): StoredPriorAttempt[] | null {
  if (!list || list.length === 0) return null;
  return list
    .map((p): StoredPriorAttempt => [p.timestampUtc, p.responseCode, p.merchantAdviceCode || null])
    .sort((a, b) => Date.parse(a[0]) - Date.parse(b[0]));
}

/** The column as read (json text on some drivers), every malformed element left out. */
export function decodePriorAttempts(value: unknown): { at: Date; responseCode: string; adviceCode: string | null }[] {
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  if (!Array.isArray(list)) return [];
  const out: { at: Date; responseCode: string; adviceCode: string | null }[] = [];
  for (const item of list) {
    if (!Array.isArray(item) || typeof item[0] !== 'string' || typeof item[1] !== 'string') continue;
    const at = new Date(item[0]);
    if (Number.isNaN(at.getTime())) continue;
    out.push({ at, responseCode: item[1], adviceCode: typeof item[2] === 'string' ? item[2] : null });
  }
  return out;
}

/** The original decline's time as stored: the transaction's own, never after the order came in. */
export function declinedAtOf(timestampUtc: string | undefined, receivedAt: Date): Date {
  const t = timestampUtc === undefined ? NaN : Date.parse(timestampUtc);
  return Number.isNaN(t) || t > receivedAt.getTime() ? receivedAt : new Date(t);
}

/** The order row's columns of the original decline, from the validated transaction. */
export function declineFacts(
  tx: { timestampUtc: string; merchantAdviceCode?: string | undefined; priorAttempts?: Parameters<typeof encodePriorAttempts>[0] },
  receivedAt: Date,
): { declinedAt: Date; declineAdvice: string | null; priorAttempts: StoredPriorAttempt[] | null } {
  return { declinedAt: declinedAtOf(tx.timestampUtc, receivedAt), declineAdvice: tx.merchantAdviceCode || null, priorAttempts: encodePriorAttempts(tx.priorAttempts) };
}
