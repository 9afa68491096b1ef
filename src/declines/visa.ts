// Visa decline categories (reattempt rules), keyed by the raw ISO 8583 response code.
// Source: shared/reference/card-networks.md, "Visa decline categories". Category 4 is every
// code not listed. Dated changes are kept as rows with the day they take effect so a decline
// is judged by the rule of its own day.
import type { Row } from './reasons.ts';
import { normaliseIsoCode } from './iso8583.ts';

export type VisaCategory = 1 | 2 | 3 | 4;

export const VISA_CATEGORIES = {
  // 1: the issuer will never approve. 14 is category 3 in older lists; the current one wins.
  '04': 1, '07': 1, '12': 1, '14': 1, '15': 1, '41': 1, '43': 1, '46': 1, R0: 1, R1: 1, R3: 1,
  // 2: the issuer cannot approve at this time.
  '03': 2, '19': 2, '51': 2, '59': 2, '61': 2, '62': 2, '65': 2, '75': 2, '78': 2, '86': 2,
  '91': 2, '93': 2, '96': 2, N3: 2, N4: 2, '5C': 2, '9G': 2,
  // 3: data quality, revalidate before retrying.
  '54': 3, '55': 3, '82': 3, N7: 3, '1A': 3,
} as const satisfies Record<string, VisaCategory>;

/** Rules that change on a given day (UTC); before it the code falls to category 4. */
export const VISA_DATED_CATEGORIES = [
  // 57 was folded into 05 for a period and returns to "never approve" from 25 Oct 2026.
  { code: '57', category: 1, fromUtc: '2026-10-25' },
  { code: '83', category: 2, fromUtc: '2026-10-25' },
] as const satisfies readonly { code: string; category: VisaCategory; fromUtc: string }[];

const DATED = VISA_DATED_CATEGORIES.map((d) => ({ ...d, fromMs: Date.parse(`${d.fromUtc}T00:00:00Z`) }));

/**
 * The category of a raw code on the day `at` (absent: the newest rules). Codes Visa reads
 * differently from the generic ISO table (82: CVV results, not "policy") are in
 * VISA_CODE_MEANINGS.
 */
export function visaCategory(rawCode: string, at?: Date): VisaCategory {
  const code = normaliseIsoCode(rawCode);
  const fixed = (VISA_CATEGORIES as Record<string, VisaCategory>)[code];
  if (fixed) return fixed;
  for (const d of DATED) {
    if (d.code === code && (at === undefined || at.getTime() >= d.fromMs)) return d.category;
  }
  return 4;
}

/** A raw code (as the processor returned it) that Visa says will never be approved. */
export function isVisaCategory1(rawCode: string, at?: Date): boolean {
  const code = normaliseIsoCode(rawCode);
  return code.length === 2 && code !== 'NA' && visaCategory(code, at) === 1;
}

/** Where Visa's meaning of a code differs from the generic ISO row. */
export const VISA_CODE_MEANINGS = {
  '82': ['cvv_failure', 'data'], // negative CAM, dCVV, iCVV or CVV results
} as const satisfies Record<string, Row>;
