// An order's original decline (the one the merchant reported), resolved the one way every
// reader shows it: the engine plans from it, the recovery report and the console's charts
// group by it, the order page and `rescued orders show` print it. The inputs are what the
// order keeps: the code and its source, the card brand, the free-text description and
// sub-status of the request, and the time of the order (network rules read on that day).
// Reading fewer of them gave different answers: the report, which read the code alone, put
// every order of the README's sample (`51` from `stripe`, "Insufficient Funds") under
// unknown while the order page said insufficient_funds (issue 28).
import { classifyDecline, type Classification, type ClassifyOptions } from './classify.ts';
import { lookupCode, sourceKey } from './sources.ts';

export interface OriginalDeclineFacts {
  declineSource: string | null;
  declineCode: string | null;
  cardBrand: string | null;
  /** transaction.responseDescription of the request, when it had one. */
  responseDescription?: string | null | undefined;
  /** transaction.responseSubStatus (Stripe's outcome.reason travels here). */
  responseSubStatus?: string | null | undefined;
  /** transaction.merchantAdviceCode: the original decline's Mastercard advice, when sent. */
  merchantAdviceCode?: string | null | undefined;
  /** When the order was created; absent: now. */
  at?: Date | undefined;
}

/** The canonical reason and class of an order's original decline. */
export function resolveOriginalDecline(d: OriginalDeclineFacts, options: ClassifyOptions = {}): Classification {
  return classifyDecline(
    {
      responseCodeSource: d.declineSource,
      responseCode: d.declineCode,
      responseDescription: d.responseDescription ?? null,
      responseSubStatus: d.responseSubStatus ?? null,
      merchantAdviceCode: d.merchantAdviceCode ?? null,
      cardBrand: d.cardBrand,
      ...(d.at ? { at: d.at } : {}),
    },
    options,
  );
}

/**
 * Whether the request's free text can change what (source, code) resolves to: the code is in
 * no table (the description decides), or the source is Stripe (a blocked outcome in the text
 * makes any code do_not_retry). The report reads the text only for these orders.
 */
export function textCanDecide(declineSource: string | null, declineCode: string | null): boolean {
  return !lookupCode(declineSource, declineCode) || sourceKey(declineSource) === 'stripe';
}

/** The order's `request` column's transaction texts, whatever shape the stored request has. */
export function requestTexts(request: unknown): { responseDescription: string | null; responseSubStatus: string | null } {
  const t = (request as { transaction?: { responseDescription?: unknown; responseSubStatus?: unknown } } | null)?.transaction;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return { responseDescription: text(t?.responseDescription), responseSubStatus: text(t?.responseSubStatus) };
}
