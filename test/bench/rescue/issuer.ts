// The simulated issuer: the answer to one attempt as a pure function of the payer's hidden
// state, the attempt's time, the card's earlier attempts at this merchant and one seeded draw
// keyed by the payer and the attempt's minute. It answers only what a real processor passes
// on: approved or not, an ISO 8583 code and, for Mastercard, a merchant advice code.
import { DAY_MS, HOUR_MS } from './calendar.ts';
import type { Payer } from './payers.ts';
import type { Population } from './population.ts';
import { uniform } from './random.ts';

/** One attempt as the card networks and the processor see it. */
export interface AttemptLog {
  atMs: number;
  approved: boolean;
  code: string;
  advice?: string;
}

export interface Answer {
  approved: boolean;
  code: string;
  advice?: string;
}

// Mastercard's "retry after" advice codes and their delays (shared/reference/card-networks.md).
const ADVICE_DELAY_MS: Readonly<Record<string, number>> = {
  '24': HOUR_MS, '25': 24 * HOUR_MS, '26': 2 * DAY_MS, '27': 4 * DAY_MS, '28': 6 * DAY_MS, '29': 8 * DAY_MS, '30': 10 * DAY_MS,
};

const APPROVED: Answer = { approved: true, code: '00' };

export interface IssuerCtx {
  pop: Population;
  seed: number;
}

/** The issuer's answer to an attempt on `payer`'s card at `atMs`, after the attempts in `prior` (oldest first). */
export function answer(ctx: IssuerCtx, payer: Payer, atMs: number, prior: readonly AttemptLog[]): Answer {
  const b = payer.behaviour;
  if (b.kind === 'never') return withAdvice(payer, b.code, b.advice);
  // The issuer's own velocity rule: past its limit of declines it refuses the card at this merchant.
  if (declinesIn30Days(payer, atMs, prior) >= payer.velocityLimit) return withAdvice(payer, '05', '03');
  // An issuer that asked for a delay (MAC 24–30) declines anything sooner, with the same advice.
  const waiting = pendingAdvice(prior, atMs);
  if (waiting && payer.brand === 'mastercard') return withAdvice(payer, shortCode(payer), waiting);
  if (atMs < payer.outageUntilMs) return { approved: false, code: payer.outageCode };
  if (b.kind === 'approve') return APPROVED;
  if (b.kind === 'funds') return b.windows.some(([from, to]) => atMs >= from && atMs < to) ? APPROVED : softDecline(payer, b.shortCode);
  // A generic hold: a small constant chance before it lifts, a high one after.
  const chance = atMs >= b.liftsAtMs ? ctx.pop.p.hold.approveAfter : ctx.pop.p.genericApproveChance;
  return uniform(ctx.seed, payer.index, 'attempt', Math.floor(atMs / 60_000)) < chance ? APPROVED : softDecline(payer, b.shortCode);
}

function shortCode(payer: Payer): string {
  const b = payer.behaviour;
  return b.kind === 'funds' || b.kind === 'hold' ? b.shortCode : '05';
}

function softDecline(payer: Payer, code: string): Answer {
  return withAdvice(payer, code, payer.advice === 'none' ? undefined : payer.advice);
}

function withAdvice(payer: Payer, code: string, advice: string | undefined): Answer {
  return payer.brand === 'mastercard' && advice ? { approved: false, code, advice } : { approved: false, code };
}

/** The original decline and the declined attempts of the last 30 days. */
function declinesIn30Days(payer: Payer, atMs: number, prior: readonly AttemptLog[]): number {
  const since = atMs - 30 * DAY_MS;
  let n = payer.declineAtMs > since ? 1 : 0;
  for (const a of prior) if (!a.approved && a.atMs > since) n++;
  return n;
}

/** A "retry after" advice whose delay has not run out at `atMs`. */
function pendingAdvice(prior: readonly AttemptLog[], atMs: number): string | undefined {
  for (let i = prior.length - 1; i >= 0; i--) {
    const a = prior[i]!;
    const delay = a.advice ? ADVICE_DELAY_MS[a.advice] : undefined;
    if (delay !== undefined && atMs < a.atMs + delay) return a.advice;
  }
  return undefined;
}

