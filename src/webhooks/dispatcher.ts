// The webhook dispatcher: claims due deliveries from the outbox (claim-webhook-deliveries.ts,
// one SKIP LOCKED statement with a lease), POSTs each signed body, and records every attempt
// (record-webhook-attempts.ts, many per statement: while one write runs, the next results
// gather, so the database sees one statement per burst rather than one per POST). At least
// once: a delivery is marked delivered only after a 2xx, and a dispatcher that dies mid-POST
// leaves its deliveries leased until the lease runs out, when any dispatcher takes them again.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.ts';
import type { Logger } from '../log.ts';
import { systemClock, type Clock } from '../clock.ts';
import { webhookDeliveriesTotal } from '../metrics.ts';
import { open, webhookSecretAad, type KeyRing } from '../vault/cipher.ts';
import { claimWebhookDeliveries, type ClaimedDelivery } from '../db/queries/claim-webhook-deliveries.ts';
import { reclaimExpiredWebhookLeases } from '../db/queries/reclaim-webhook-leases.ts';
import { recordWebhookAttempts, type AttemptRecord } from '../db/queries/record-webhook-attempts.ts';
import { liveKeys, signatureHeaders } from './signing.ts';
import { createPoster, type Poster } from './post.ts';
import { decide, RETRY_DELAYS_MS } from './schedule.ts';
import type { Mode, Resolver } from './url-safety.ts';

export interface DispatcherOptions {
  db: Db;
  keyRing: KeyRing;
  log: Logger;
  mode: Mode;
  clock?: Clock;
  timeoutMs: number;
  /** POSTs in flight in this process. */
  maxInFlight: number;
  /** POSTs in flight to one endpoint, across every replica. */
  perEndpointConcurrency: number;
  leaseSeconds: number;
  pollIntervalMs: number;
  /** The retry schedule (tests shrink it); default DESIGN.md §2's. */
  retryDelaysMs?: readonly number[];
  random?: () => number;
  resolve?: Resolver;
  /** This dispatcher's name in lease_owner. */
  owner?: string;
}

export interface Dispatcher {
  start(): void;
  /** Stops claiming, waits for the POSTs in flight and records them. */
  stop(): Promise<void>;
  /** Resolves when nothing is in flight, being claimed or waiting to be recorded. */
  idle(): Promise<void>;
  /** Claims once now (tests, and after the CLI added work). */
  kick(): void;
}

export function createDispatcher(o: DispatcherOptions): Dispatcher {
  const clock = o.clock ?? systemClock;
  const owner = o.owner ?? `dispatcher-${randomUUID()}`;
  const log = o.log.child({ component: 'webhooks' });
  const delays = o.retryDelaysMs ?? RETRY_DELAYS_MS;
  // A lease shorter than a POST may last would hand a delivery to a second POST while the
  // first still runs: it outlasts the timeout by at least 5 s, whatever is configured.
  const leaseMs = Math.max(o.leaseSeconds * 1000, o.timeoutMs + 5_000);
  const poster: Poster = createPoster({ mode: o.mode, timeoutMs: o.timeoutMs, maxSockets: o.perEndpointConcurrency, resolve: o.resolve });
  const keyCache = new Map<string, Buffer>();
  let inFlight = 0;
  const perEndpoint = new Map<string, number>();
  let kickScheduled = false;
  /** A slot freed, or a full claim, while a claim was running: claim again after it. */
  let claimAgain = false;
  let claiming = false;
  let flushing = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let lastReclaim = 0;
  let pending: AttemptRecord[] = [];
  let idleWaiters: Array<() => void> = [];

  const isIdle = () => inFlight === 0 && !claiming && !flushing && pending.length === 0;
  const checkIdle = () => {
    if (!isIdle()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  /** The whsec_ secret behind a sealed value, opened once per process. */
  function secret(sealed: string, merchantId: string): string {
    let key = keyCache.get(sealed);
    if (!key) {
      if (keyCache.size > 10_000) keyCache.clear();
      key = open(o.keyRing, sealed, webhookSecretAad(merchantId));
      keyCache.set(sealed, key);
    }
    return key.toString('utf8');
  }

  async function deliver(d: ClaimedDelivery): Promise<AttemptRecord> {
    const attemptNo = d.attemptCount + 1;
    const at = clock.now();
    const url = new URL(d.url);
    const body = JSON.stringify({ ...d.payload, IsResent: d.isResent });
    const keys = liveKeys({ current: secret(d.secretSealed, d.merchantId), previous: d.previousSecretSealed && secret(d.previousSecretSealed, d.merchantId), previousExpiresAt: d.previousSecretExpiresAt }, at);
    const res = await poster.post(url, signatureHeaders({ id: d.eventId, at, body, host: url.host, keys }), body);
    const outcome = decide(res, attemptNo, clock.now(), delays, o.random);
    const result = outcome.kind === 'retry' ? 'failed' : outcome.kind;
    webhookDeliveriesTotal.inc({ result });
    const ctx = { deliveryId: d.id, webhookId: d.eventId, mid: d.merchantId, attemptNo, statusCode: res.statusCode, latencyMs: res.latencyMs, error: res.error };
    if (outcome.kind === 'dead') log.warn(ctx, 'webhook delivery dead after its last attempt');
    else if (outcome.kind === 'disabled') log.warn({ ...ctx, endpointId: d.endpointId }, 'receiver answered 410: endpoint disabled');
    else log.debug({ ...ctx, outcome: outcome.kind }, 'webhook attempt');
    return {
      deliveryId: d.id,
      endpointId: d.endpointId,
      attemptNo,
      attemptedAt: at,
      statusCode: res.statusCode ?? null,
      latencyMs: res.latencyMs,
      error: res.error ?? null,
      status: outcome.kind === 'delivered' ? 'delivered' : outcome.kind === 'dead' ? 'dead' : 'pending',
      // A disabled endpoint's delivery is due again at once, and waits for `enable`.
      nextAttemptAt: outcome.kind === 'retry' ? outcome.at : outcome.kind === 'disabled' ? at : null,
      disableEndpoint: outcome.kind === 'disabled',
    };
  }

  function launch(d: ClaimedDelivery): void {
    inFlight++;
    perEndpoint.set(d.endpointId, (perEndpoint.get(d.endpointId) ?? 0) + 1);
    deliver(d)
      .catch((err: unknown): AttemptRecord | undefined => {
        // Not an HTTP failure (a secret that does not open): the lease brings it back later.
        log.error({ err, deliveryId: d.id }, 'webhook delivery failed before its POST');
        return undefined;
      })
      .then((record) => {
        inFlight--;
        const left = perEndpoint.get(d.endpointId)! - 1;
        if (left > 0) perEndpoint.set(d.endpointId, left);
        else perEndpoint.delete(d.endpointId);
        if (record) pending.push(record);
        flush();
        // The slot is free now (claims count this dispatcher's slots in memory).
        scheduleKick();
      });
  }

  /**
   * Records what has finished, one statement at a time. The write starts on the next turn of
   * the event loop (setImmediate), after every answer already read in this one: PGlite runs
   * inside this thread and answers without yielding to I/O, and without the deferral it
   * wrote (and claimed) once per POST, measured at a fifth of the batched rate.
   */
  function flush(): void {
    if (flushing || pending.length === 0) return checkIdle();
    flushing = true;
    setImmediate(write);
  }

  function write(): void {
    const batch = pending;
    pending = [];
    recordWebhookAttempts(o.db, owner, batch)
      .catch((err: unknown) => log.error({ err, attempts: batch.length }, 'could not record webhook attempts; their leases will bring them back'))
      .finally(() => {
        flushing = false;
        flush();
        checkIdle();
      });
  }

  /** One claim for every answer read in this turn of the event loop (see flush). */
  function scheduleKick(): void {
    if (kickScheduled) return;
    kickScheduled = true;
    setImmediate(() => {
      kickScheduled = false;
      kick();
    });
  }

  function kick(): void {
    if (stopping || inFlight >= o.maxInFlight) return checkIdle();
    if (claiming) {
      claimAgain = true;
      return;
    }
    claiming = true;
    claimAgain = false;
    void claimRound().finally(() => {
      claiming = false;
      if (claimAgain) scheduleKick();
      checkIdle();
    });
  }

  async function claimRound(): Promise<void> {
    const now = clock.now();
    try {
      if (now.getTime() - lastReclaim >= leaseMs / 4) {
        lastReclaim = now.getTime();
        const back = await reclaimExpiredWebhookLeases(o.db, now);
        if (back > 0) log.warn({ deliveries: back }, 'webhook leases expired: deliveries returned');
      }
      const limit = o.maxInFlight - inFlight;
      const claimed = await claimWebhookDeliveries(o.db, { owner, now, leaseUntil: new Date(now.getTime() + leaseMs), limit, perEndpoint: o.perEndpointConcurrency, mine: perEndpoint });
      for (const d of claimed) launch(d);
      // A full claim means more may be due: claim again as soon as this round ends.
      if (claimed.length === limit) claimAgain = true;
    } catch (err) {
      if (!stopping) log.error({ err }, 'webhook claim failed');
    }
  }

  return {
    start() {
      timer = setInterval(kick, o.pollIntervalMs);
      timer.unref();
      kick();
    },
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      await new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        checkIdle();
      });
      poster.close();
    },
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        checkIdle();
      }),
    kick,
  };
}
