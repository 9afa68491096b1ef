// Per-merchant rate limit: a token bucket in PostgreSQL (rate_buckets), so the limit holds
// across replicas. Going to the database for every request would cost the hot path a round
// trip, so each instance takes tokens in small batches (about 1/20 s of the rate) and spends
// them locally; tokens taken but unused for a second are dropped rather than hoarded.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/client.ts';
import type { Clock } from '../clock.ts';
import { takeRateTokens, type Taken } from '../db/queries/take-rate-tokens.ts';
import { progressBoard } from '../intake/progress-board.ts';
import { RescuedError } from '../errors.ts';
import { sendError } from './errors.ts';

export interface RateLimitSettings {
  rateLimitPerSecond: number;
  rateLimitBurst: number;
}

interface Local {
  tokens: number;
  takenAt: number;
  pending: Promise<void> | undefined;
  retryAfterS: number;
}

const HOLD_MS = 1000;

/**
 * The same bucket in this process's memory, for the time a file's ingest holds the database's
 * only connection (PGlite, a pool of one: src/intake/progress-board.ts): the statement would
 * wait for the file's commit, and PGlite has no replica to share the bucket with.
 */
function localBuckets(s: RateLimitSettings) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key: string, want: number, now: Date): Taken => {
    const b = buckets.get(key) ?? { tokens: s.rateLimitBurst, at: now.getTime() };
    const available = Math.min(s.rateLimitBurst, b.tokens + (Math.max(0, now.getTime() - b.at) / 1000) * s.rateLimitPerSecond);
    const granted = Math.min(want, Math.floor(available));
    buckets.set(key, { tokens: available - granted, at: now.getTime() });
    return { granted, available };
  };
}

export function createRateLimiter(db: Db, clock: Clock, s: RateLimitSettings) {
  const chunk = Math.max(1, Math.min(s.rateLimitBurst, Math.ceil(s.rateLimitPerSecond / 20)));
  const locals = new Map<string, Local>();
  const board = progressBoard(db);
  const takeLocal = localBuckets(s);

  async function refill(key: string, l: Local): Promise<void> {
    const now = clock.now();
    const t = board.held() ? takeLocal(key, chunk, now) : await takeRateTokens(db, key, chunk, s.rateLimitPerSecond, s.rateLimitBurst, now);
    l.tokens = t.granted;
    l.takenAt = now.getTime();
    l.retryAfterS = t.granted > 0 ? 0 : Math.max(1, Math.ceil((1 - t.available) / s.rateLimitPerSecond));
  }

  /** True when the merchant may make one more request now; otherwise the seconds to wait. */
  async function take(merchantId: string): Promise<true | number> {
    let l = locals.get(merchantId);
    if (!l) locals.set(merchantId, (l = { tokens: 0, takenAt: 0, pending: undefined, retryAfterS: 0 }));
    for (;;) {
      if (clock.now().getTime() - l.takenAt > HOLD_MS) l.tokens = 0;
      if (l.tokens >= 1) {
        l.tokens -= 1;
        return true;
      }
      if (l.pending) {
        await l.pending;
        if (l.tokens < 1 && l.retryAfterS > 0) return l.retryAfterS;
        continue;
      }
      l.pending = refill(`merchant:${merchantId}`, l).finally(() => (l.pending = undefined));
      await l.pending;
      if (l.tokens < 1) return l.retryAfterS || 1;
    }
  }

  return async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    if (!request.merchant) return;
    const verdict = await take(request.merchant.merchantId);
    if (verdict !== true) return sendError(reply.header('retry-after', String(verdict)), new RescuedError('ERR_API_RATE_LIMITED'));
  };
}
