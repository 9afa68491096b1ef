// Card brands as the network rules need them. `cardBrand` is free text in the spec ("VISA",
// "Mastercard", "AMEX", ...); an unknown or absent brand gets every network's rules, the
// strictest reading.
export type Brand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'other' | 'unknown';

const BRANDS: Record<string, Brand> = {
  visa: 'visa',
  visaelectron: 'visa',
  vpay: 'visa',
  mastercard: 'mastercard',
  mc: 'mastercard',
  maestro: 'mastercard',
  debitmastercard: 'mastercard',
  amex: 'amex',
  americanexpress: 'amex',
  discover: 'discover',
  diners: 'discover',
  dinersclub: 'discover',
};

export function normaliseBrand(cardBrand: string | null | undefined): Brand {
  const lower = (cardBrand ?? '').toLowerCase();
  const direct = BRANDS[lower];
  if (direct) return direct;
  const key = lower.replace(/[^a-z]/g, '');
  if (key === '' || key === 'na' || key === 'unknown') return 'unknown';
  return BRANDS[key] ?? 'other';
}

/** Whether Visa's reattempt rules apply: a Visa card, or a card whose brand is unknown. */
export function visaRulesApply(brand: Brand): boolean {
  return brand === 'visa' || brand === 'unknown';
}

export function mastercardRulesApply(brand: Brand): boolean {
  return brand === 'mastercard' || brand === 'unknown';
}
