// The card networks' reattempt limits as dated tables: the row in force on the day of an
// attempt applies, the first row also before its date (the oldest rule known governs the days
// before it). They are the defaults of `engine.visaReattemptLimits` and
// `engine.mastercardAttemptLimits` (a configuration replaces a table whole) and of the engine's
// rules (src/engine/rules.ts), so a network's change is a new row here, not new logic.
// What each network counts: docs/engine.md, "What the card's windows count".

/**
 * Visa categories 2–4: reattempts per card (per credential: a network token and its PAN are
 * two vault cards, two counters) and merchant in 30 days. The merchant's original decline of
 * each order is not a reattempt; its own earlier tries and every rescued attempt are.
 */
export const VISA_REATTEMPT_LIMITS = [
  // From 1 April 2021 (fees phased in July 2021 – April 2022): at most 15, CIT and MIT in one
  // count. Sources: Stripe, "Payment blocked due to excessive retries"; Payvision scheme update
  // of 29 March 2021; shared/reference/card-networks.md.
  { fromUtc: '2021-04-01', maxPer30Days: 15, separateCitMit: false },
  // From 25 April 2026: at most 20, with separate counters for CIT and MIT. Source:
  // Checkout.com's notice of March 2026 ("Changes to Visa system integrity fees"). Cielo dates
  // the raise 25 May 2025 and some acquirers still publish 15: the latest date any source gives
  // is taken, so no day is counted under the looser rule too early.
  { fromUtc: '2026-04-25', maxPer30Days: 20, separateCitMit: true },
] as const;

/**
 * Mastercard's excessive-attempt programme: every authorization on the card at the merchant
 * counts (rescued's attempts, each order's original decline, the merchant's earlier tries).
 */
export const MASTERCARD_ATTEMPT_LIMITS = [
  // From November 2023 (US; Canada from April 2024): more than 35 attempts on one card at one
  // merchant within 30 days is fined (the amount is ignored here, which only makes us
  // stricter), and more than 20 declines within 24 hours (US/Canada). Source:
  // shared/reference/card-networks.md, "Excessive attempts".
  { fromUtc: '2023-11-01', maxAttemptsPer30Days: 35, maxDeclinesPer24Hours: 20 },
] as const;
