// Mastercard Merchant Advice Codes (MAC): what each says about the decline. Which codes stop
// and how long the others wait are network rules, kept in ../rules.ts so they can be
// configured; this table only names the reason a stopping advice stands for.
// Source: shared/reference/card-networks.md, "Mastercard Merchant Advice Codes (MAC)".
import type { Row } from '../reasons.ts';

export const MASTERCARD_ADVICE_MEANINGS = {
  '01': ['new_account_information', 'data'], // new account information available
  '02': ['try_again_later', 'soft-temporary'], // cannot approve now, try later
  '03': ['do_not_retry', 'hard'], // do not try again: every resubmission within 30 days is fined
  '04': ['merchant_side', 'hard'], // token requirements not fulfilled
  '21': ['stop_payment', 'hard'], // payment cancellation / stop recurring
  '24': ['try_again_later', 'soft-temporary'], // retry after 1 hour
  '25': ['try_again_later', 'soft-generic'], // retry after 24 hours
  '26': ['try_again_later', 'soft-generic'], // retry after 2 days
  '27': ['try_again_later', 'soft-generic'], // retry after 4 days
  '28': ['try_again_later', 'soft-generic'], // retry after 6 days
  '29': ['try_again_later', 'soft-generic'], // retry after 8 days
  '30': ['try_again_later', 'soft-generic'], // retry after 10 days
} as const satisfies Record<string, Row>;

/** "3" → "03"; anything that is not one or two digits is not a MAC. */
export function normaliseAdviceCode(code: string | null | undefined): string | undefined {
  if (code == null) return undefined;
  const c = code.trim();
  if (!/^\d{1,2}$/.test(c)) return undefined;
  return c.length === 1 ? `0${c}` : c;
}
