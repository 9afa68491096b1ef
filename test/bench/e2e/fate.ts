// What happens to entry n of the end-to-end bench's file, drawn from the seed and n alone, so
// that the generator, the gateway fake (another process) and the check agree without either
// keeping a list: most cards approve at the first attempt; some decline soft (insufficient
// funds: planned for a later payday) and then approve or decline hard at the second attempt;
// some decline hard at once (lost card: EXPIRED without a retry).
// Cards are "sandbox-shaped": Luhn-valid numbers on the test BINs 424242 (Visa) and 555555
// (Mastercard), one per order (the networks' caps count per card; a real book of rebills is
// of distinct cards), with a vault token that names the entry.

export type Fate = 'approve' | 'soft_then_approve' | 'soft_then_hard' | 'hard';

export interface Mix {
  /** Shares of the entries; the rest approve at the first attempt. */
  soft: number;
  hard: number;
  /** Of the soft ones, the share that declines hard at the second attempt (the rest approve). */
  softThenHard: number;
}

export const DEFAULT_MIX: Mix = { soft: 0.1, hard: 0.05, softThenHard: 0.3 };

/** A well-mixed 32-bit hash of (seed, n, salt) → [0, 1): no state, any order of calls. */
function unit(seed: number, n: number, salt: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(n + 1, 0xc2b2ae35) ^ Math.imul(salt + 7, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

export function fateOf(seed: number, n: number, mix: Mix = DEFAULT_MIX): Fate {
  const u = unit(seed, n, 1);
  if (u < mix.hard) return 'hard';
  if (u < mix.hard + mix.soft) return unit(seed, n, 2) < mix.softThenHard ? 'soft_then_hard' : 'soft_then_approve';
  return 'approve';
}

/** The gateway's answer to attempt `attemptNo` (1-based) of entry n. */
export function answerOf(fate: Fate, attemptNo: number): 'approve' | 'soft' | 'hard' {
  if (fate === 'approve') return 'approve';
  if (fate === 'hard') return 'hard';
  if (attemptNo <= 1) return 'soft';
  return fate === 'soft_then_approve' ? 'approve' : 'hard';
}

/** Final after the first attempt (a webhook is due then), or only after the second. */
export const finalAtFirst = (f: Fate) => f === 'approve' || f === 'hard';

function luhnDigit(body: string): string {
  let sum = 0;
  for (let i = body.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = body.charCodeAt(i) - 48;
    if (double) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** Entry n's card: every fourth a Mastercard, the others Visa. */
export function cardOf(run: string, n: number): { pan: string; brand: 'VISA' | 'MASTERCARD'; token: string } {
  const mastercard = n % 4 === 3;
  const body = `${mastercard ? '555555' : '424242'}${String(n).padStart(9, '0')}`;
  // tok_ and 32 characters of [A-Za-z0-9_-], as the vault's own tokens (looksLikeCardToken).
  const token = `tok_e2e${run}${String(n).padStart(32 - 3 - run.length, '0')}`;
  return { pan: body + luhnDigit(body), brand: mastercard ? 'MASTERCARD' : 'VISA', token };
}

/** Entry n's orderId (1-based n in the file's sequence), and back. */
export const orderIdOf = (run: string, n: number) => `E2E-${run}-${n}`;
export function entryOfOrderId(orderId: string): number {
  const dash = orderId.lastIndexOf('-');
  return dash < 0 ? -1 : Number(orderId.slice(dash + 1));
}
