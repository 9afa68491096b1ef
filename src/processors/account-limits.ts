// Limits per processor account, so one slow or broken account cannot stall the others: a
// queue with a concurrency and a rate (p-queue), and a circuit breaker that stops calling an
// account whose calls keep failing without an answer about the card, and says so.
import PQueue from 'p-queue';
import type { Logger } from '../log.ts';
import { gatewayCircuitOpened } from '../metrics.ts';
import { GatewayError } from './connector.ts';

export interface LimitSettings {
  accountConcurrency: number;
  accountRatePerSecond: number;
  breakerFailures: number;
  breakerCooldownMs: number;
}

export interface AccountLimiter {
  /** Runs a call in the account's queue; refused at once (not_sent) while the circuit is open. */
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Open until this time (ms since the epoch); 0 when closed. */
  openUntil(): number;
}

/** Calls are judged over windows of this length: a broken account fails nearly all of them. */
const WINDOW_MS = 10_000;

export function createAccountLimiter(settings: LimitSettings, who: { label: string; type: string; mid?: string }, log: Logger, now: () => number = Date.now): AccountLimiter {
  const queue = new PQueue({ concurrency: settings.accountConcurrency, intervalCap: settings.accountRatePerSecond, interval: 1000 });
  // Outcomes in the current window. The circuit opens on breakerFailures failures that are at
  // least half of the window's calls: calls started together time out together, so a count in
  // a row alone tripped on a 5 % fault rate (measured: npm run bench -- gateways --faults).
  let windowStart = now();
  let failures = 0;
  let successes = 0;
  let openUntil = 0;
  let probing = false;
  // Opened again and again without a call getting through: each pause doubles (backoff), up
  // to 32 times breakerCooldownMs, so a revoked key is not hammered while the operator fixes it.
  let opens = 0;

  function roll(): void {
    const t = now();
    if (t - windowStart < WINDOW_MS) return;
    windowStart = t;
    failures = 0;
    successes = 0;
  }

  function open(err: GatewayError): void {
    const cooldownMs = settings.breakerCooldownMs * 2 ** Math.min(opens, 5);
    opens++;
    openUntil = now() + cooldownMs;
    windowStart = now();
    failures = 0;
    successes = 0;
    gatewayCircuitOpened.inc({ type: who.type });
    log.error({ account: who.label, type: who.type, kind: err.kind, status: err.status, code: err.code, cooldownMs }, 'processor account circuit opened: its calls keep failing; it is left alone for a while');
  }

  function failed(err: GatewayError, probe: boolean): void {
    if (probe) return open(err);
    // Calls already in flight when it opened (or while it is probed) tell nothing new.
    if (openUntil !== 0) return;
    roll();
    failures++;
    if (failures >= settings.breakerFailures && failures >= successes) open(err);
  }

  function answered(probe: boolean): void {
    if (probe) {
      openUntil = 0;
      opens = 0;
    }
    if (openUntil !== 0) return;
    roll();
    successes++;
    opens = 0;
  }

  /**
   * HTTP 409: the gateway says the first call with this idempotency key is still running. The
   * outcome stays unknown, but the account answered: reconciling one hung key must not pause
   * the account for every other order (it did, in the fault campaign's gateway-faults).
   */
  const stillRunning = (err: GatewayError) => err.kind === 'unknown' && err.status === 409;

  async function run<T>(call: () => Promise<T>): Promise<T> {
    if (openUntil > now()) throw new GatewayError('not_sent', `the account ${who.label} is paused after repeated failures (circuit open)`);
    // The first call after the cool-down is a probe: it closes the circuit or opens it again.
    const probe = openUntil !== 0;
    if (probe) {
      if (probing) throw new GatewayError('not_sent', `the account ${who.label} is being probed after repeated failures`);
      probing = true;
    }
    try {
      const result = await queue.add(call);
      answered(probe);
      return result;
    } catch (err) {
      if (err instanceof GatewayError) (stillRunning(err) ? answered : (p: boolean) => failed(err, p))(probe);
      throw err;
    } finally {
      if (probe) probing = false;
    }
  }

  return { run, openUntil: () => openUntil };
}
