// Mastercard Merchant Advice Codes (MAC): what each says about the decline, which codes stop
// and how long the others wait. The last two are network rules the engine's rules
// (src/engine/rules.ts) start from and a configuration can change; the classifier reads them
// from there, and these defaults when it is given none.
// Source: shared/reference/card-networks.md, "Mastercard Merchant Advice Codes (MAC)".
import type { Row } from './reasons.ts';

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

const HOUR_MS = 3_600_000;

/** MAC 01 new account information, 03 do not try again, 04 token requirements not met, 21 payment cancelled: no further attempt on this order. */
export const MASTERCARD_STOP_ADVICE = ['01', '03', '04', '21'] as const;

/** MAC 24–30: not before the advised delay after the decline that carried it. */
export const MASTERCARD_ADVICE_DELAYS_MS = {
  '24': 1 * HOUR_MS,
  '25': 24 * HOUR_MS,
  '26': 48 * HOUR_MS,
  '27': 96 * HOUR_MS,
  '28': 144 * HOUR_MS,
  '29': 192 * HOUR_MS,
  '30': 240 * HOUR_MS,
} as const;

/** The part of the network rules the classifier reads. */
export interface AdviceRules {
  readonly mastercard: {
    readonly stopAdvice: readonly string[];
    readonly adviceDelaysMs: Readonly<Record<string, number>>;
  };
}

export const defaultAdviceRules: AdviceRules = {
  mastercard: { stopAdvice: MASTERCARD_STOP_ADVICE, adviceDelaysMs: MASTERCARD_ADVICE_DELAYS_MS },
};
