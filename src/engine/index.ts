// The rescue engine's runtime: plans SUBMITTED orders a batch at a time, claims due PENDING
// orders with their attempt rows in one statement, sends the attempts to the processor through
// a queue with a concurrency and a rate per processor, records the answers that arrive
// together in one transaction, and runs the sweeps on a cron schedule. The database work is
// done per group of attempts, not per attempt (134 → 1,125 attempts/s here, README). Planning
// and claiming are two loops: each wakes by short polling and goes on at once after a full
// group, and a planned group wakes the claims (its orders may be due now).
import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import type { Clock } from '../clock.ts';
import type { ResolvedConfig } from '../config/index.ts';
import type { Db } from '../db/client.ts';
import { pinAttempts, type Claimed } from '../db/queries/claim-attempts.ts';
import type { Logger } from '../log.ts';
import { queueDepth } from '../metrics.ts';
import type { Processor } from '../processors/types.ts';
import { claimAttempts, type ClaimCtx } from './claim.ts';
import { grouped } from '../group.ts';
import { scheduleExclusive, type Schedule } from '../schedule.ts';
import { cachedModels } from './model-cache.ts';
import { cachedAwaitSetting } from './card-update.ts';
import { cachedLearnedTables } from './learning/source.ts';
import { outcomeCounter } from './learning/counter.ts';
import { recordGroup, type RecorderCtx } from './recorder.ts';
import { planSubmitted, type SubmittedCtx } from './submitted.ts';
import { resolveRules, type Rules } from './rules.ts';
import { finishBatchesNow, sweepOnce, type SweepCtx, type SweepReport } from './sweeps.ts';
import { createBatchFinisher } from './batch-finish.ts';
import { runAttempt, type AttemptOutcome, type WorkerCtx } from './worker.ts';

export type EngineConfig = ResolvedConfig['engine'] & Pick<ResolvedConfig['processor'], 'concurrency' | 'ratePerSecond'> & Partial<Pick<ResolvedConfig['processor'], 'reconcileAfterMs' | 'reconcileTimeoutMs' | 'timeoutMs'>>;

export interface EngineDeps {
  db: Db;
  processor: Processor;
  clock: Clock;
  log: Logger;
  config: EngineConfig;
  /** Events carry IsTestMode (sandbox mode). Default false. */
  testMode?: boolean;
  /** The outbound folder of a merchant's SFTP user, for results files; absent: none are written. */
  outboundFor?: (username: string) => string;
  /** This instance's name in leases (default: a random id). */
  instanceId?: string;
  /** Network rules over the defaults (the config's rule keys are applied on top). */
  rules?: Rules;
}

export interface Engine {
  /** Plans every due SUBMITTED order, claims one batch of due PENDING orders and runs them; resolves with the attempts finished. */
  runOnce(): Promise<number>;
  /** Every sweep once (also on the cron schedule after start). */
  sweepOnce(): Promise<SweepReport>;
  start(): void;
  /** Stops polling and the sweeps and waits for the attempts in flight. */
  stop(): Promise<void>;
}

/** A polling loop: `done` once stopped; `wake` ends its wait at once. */
interface Loop {
  done: Promise<void>;
  wake(): void;
}

/** When the processor fails without an answer, the order is looked at again after this long. */
const ERROR_RETRY_MS = 60_000;
/** Old idempotency records and processor answers are pruned at most this often. */
const PRUNE_EVERY_MS = 3_600_000;
/** Learned-timing outcomes are written at most this often while running (and after runOnce, and at stop). */
const COUNT_EVERY_MS = 1000;
// Looks for finished batches after answers at most this often: one short query a second while
// attempts flow, and a results file at most about a second after a batch's last order is final.
const BATCH_LOOK_MIN_INTERVAL_MS = 1000;
/** Answers recorded per transaction at most. */
const RECORD_GROUP_MAX = 100;

/**
 * The network rules: the defaults (rules.ts), the caller's overrides, then the configuration's
 * keys: its dated tables, and a single Visa limit (visaMaxReattemptsPer30Days, 0: none) that
 * replaces every row's, keeping each row's date and counters.
 */
type RuleKeys = Pick<EngineConfig, 'maxAttemptsPerOrder'> & Partial<Pick<EngineConfig, 'visaMaxReattemptsPer30Days' | 'visaReattemptLimits' | 'mastercardAttemptLimits'>>;

export function engineRules(config: RuleKeys, over: Rules | undefined): Rules {
  const base = resolveRules({ ...(over ?? {}), maxAttemptsPerOrder: config.maxAttemptsPerOrder });
  const single = config.visaMaxReattemptsPer30Days ?? 0;
  const table = config.visaReattemptLimits ?? base.visa.reattemptLimits;
  const visa = { ...base.visa, reattemptLimits: single > 0 ? table.map((r) => ({ ...r, maxPer30Days: single })) : table };
  return { ...base, visa, mastercard: { ...base.mastercard, attemptLimits: config.mastercardAttemptLimits ?? base.mastercard.attemptLimits } };
}

export function createEngine(deps: EngineDeps): Engine {
  const { db, processor, clock, config } = deps;
  const log = deps.log.child({ component: 'engine' });
  const owner = deps.instanceId ?? `engine-${randomUUID()}`;
  const rules = engineRules(config, deps.rules);
  const testMode = deps.testMode ?? false;
  const models = cachedModels(clock);
  const learned = cachedLearnedTables(clock, config.learning ?? 'on');
  // Orders wait for an updated card when the card must change: the merchant's setting, else
  // engine.awaitUpdatedCard ('sandbox': in sandbox mode only; docs/engine.md "Card updates").
  const awaitDefault = (config.awaitUpdatedCard ?? 'sandbox') === 'sandbox' ? testMode : config.awaitUpdatedCard === 'on';
  const lifecycle = { rules, testMode, models, learned, awaitCard: cachedAwaitSetting(clock, awaitDefault) };
  const counter = learned.mode === 'on' ? outcomeCounter(db, clock, log) : undefined;
  const recorder: RecorderCtx = { ...lifecycle, db, clock, processorName: processor.name, owner, ...(counter ? { counter } : {}) };
  // Answers that arrive together are recorded in one transaction; two groups may be written
  // at once (a pool serves both; PGlite runs them one after the other).
  const record = grouped((items: Parameters<typeof recordGroup>[1]) => recordGroup(recorder, items), { maxSize: RECORD_GROUP_MAX, maxInFlight: 2 });
  // Only the processor call holds a queue slot: the recording of its answer waits for its
  // group without keeping the next call from the processor.
  // New attempts are pinned to their accounts before their calls, a group per statement.
  const pin = grouped((pins: Parameters<typeof pinAttempts>[1]) => pinAttempts(db, pins).then(() => pins.map(() => undefined)), { maxSize: RECORD_GROUP_MAX, maxInFlight: 2 });
  const worker: WorkerCtx = {
    db, processor, clock, log, record, pin, atProcessor: (call) => queue.add(call), pauseAfterAnswerMs: config.pauseAfterAnswerMs, errorRetryMs: ERROR_RETRY_MS,
    reconcileAfterMs: config.reconcileAfterMs ?? ERROR_RETRY_MS, reconcileTimeoutMs: config.reconcileTimeoutMs ?? 86_400_000,
    lookupSettleMs: 2 * (config.timeoutMs ?? 30_000),
  };
  const submitted: SubmittedCtx = { ...lifecycle, db, clock };
  const claiming: ClaimCtx = { ...lifecycle, db, clock, processorName: processor.name, owner, leaseSeconds: config.leaseSeconds };
  const sweeps: SweepCtx = { db, clock, log, testMode, processorCallRetentionDays: config.processorCallRetentionDays, outboundFor: deps.outboundFor, processor };
  // A batch's results file once its last order is final, not at the next sweep.
  const finisher = createBatchFinisher({ finish: () => finishBatchesNow(sweeps), log, minIntervalMs: BATCH_LOOK_MIN_INTERVAL_MS });
  const queue = new PQueue({ concurrency: config.concurrency, intervalCap: config.ratePerSecond, interval: 1000 });
  const depth = () => queueDepth.set(queue.size + queue.pending);
  queue.on('add', depth);
  queue.on('next', depth);

  async function planAllSubmitted(): Promise<void> {
    while (await planSome());
  }

  /** One group of SUBMITTED orders planned; true when the group was full (more may wait). */
  async function planSome(): Promise<boolean> {
    const planned = await planSubmitted(submitted, config.claimBatchSize);
    // Planning ends some orders at once (a hard original decline): a batch may be all final now.
    if (running && planned > 0 && deps.outboundFor) finisher.touch();
    if (planned > 0) claims?.wake();
    return planned === config.claimBatchSize;
  }

  const claim = (limit: number) => claimAttempts(claiming, limit);

  // Claimed attempts not finished yet: at the processor, waiting for it, or being recorded.
  const active = new Set<Promise<AttemptOutcome>>();
  function attempt(c: Claimed): Promise<AttemptOutcome> {
    const run = runAttempt(worker, c).catch((err: unknown): AttemptOutcome => {
      // The order stays PROCESSING; its lease runs out and the sweep returns it to the queue.
      log.error({ err, orderSessionKey: c.order.id }, 'attempt failed');
      return 'error';
    });
    active.add(run);
    void run.finally(() => active.delete(run));
    // An answer recorded (approved, declined, voided) may have made the batch's last order final.
    // Only once started: runOnce's caller runs the sweeps itself, when it chooses.
    if (running && c.order.batchId && deps.outboundFor) void run.then((o) => o !== 'skipped' && o !== 'error' && o !== 'unknown' && finisher.touch());
    return run;
  }

  async function runOnce(): Promise<number> {
    await planAllSubmitted();
    const outcomes = await Promise.all((await claim(config.claimBatchSize)).map(attempt));
    await counter?.flush();
    // Attempts that reached an end: no answer (error) or no known outcome (unknown) is not one.
    return outcomes.filter((o) => o !== 'skipped' && o !== 'error' && o !== 'unknown').length;
  }

  let running = false;
  let claims: Loop | undefined;
  let planning: Loop | undefined;
  let sweepSchedule: Schedule | undefined;
  let counting: NodeJS.Timeout | undefined;

  /** One claim; true when it found a full batch (claim again at once). */
  async function claimSome(): Promise<boolean> {
    // Claim no more than the queue can start soon: a lease must not run out while queued.
    const room = Math.min(config.claimBatchSize, config.concurrency * 2 - active.size);
    if (room <= 0) {
      while (active.size >= config.concurrency) await Promise.race(active);
      return true;
    }
    const claimed = await claim(room);
    for (const o of claimed) void attempt(o);
    return claimed.length === room;
  }

  /**
   * Runs `step` while it finds a full group, then waits the polling interval or a wake. The
   * planning of a large file's SUBMITTED orders runs beside the claims, not between them: one
   * group planned per claim held the attempts of a million-entry file to the planning's pace
   * (about 300 orders/s, docs/performance.md "End to end").
   */
  function loop(what: string, step: () => Promise<boolean>): Loop {
    let wake: AbortController | undefined;
    const done = (async () => {
      while (running) {
        let full = false;
        try {
          full = await step();
        } catch (err) {
          log.error({ err }, `engine ${what} failed`);
        }
        if (full || !running) continue;
        wake = new AbortController();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, config.pollIntervalMs);
          wake!.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
    })();
    return { done, wake: () => wake?.abort() };
  }

  let lastPruneMs = -Infinity;
  async function runSweeps(): Promise<SweepReport> {
    const nowMs = clock.now().getTime();
    const pruneNow = nowMs - lastPruneMs >= PRUNE_EVERY_MS;
    if (pruneNow) lastPruneMs = nowMs;
    const report = await sweepOnce(sweeps, { prune: pruneNow });
    if (report.expired || report.reclaimed || report.batchesFinished || report.pruned || report.voided) log.info(report, 'sweep');
    return report;
  }

  return {
    runOnce,
    sweepOnce: runSweeps,
    start() {
      if (running) return;
      // First: it refuses an invalid engine.sweepCron before anything runs.
      sweepSchedule = scheduleExclusive(config.sweepCron, { name: `rescued-sweeps-${owner}`, setting: 'engine.sweepCron' }, () => runSweeps().catch((err: unknown) => log.error({ err }, 'sweep failed')), log);
      running = true;
      if (counter) counting = setInterval(() => void counter.flush(), COUNT_EVERY_MS).unref();
      planning = loop('planning', planSome);
      claims = loop('claim', claimSome);
      log.info({ owner, concurrency: config.concurrency, ratePerSecond: config.ratePerSecond, pollIntervalMs: config.pollIntervalMs }, 'engine started');
    },
    async stop() {
      running = false;
      planning?.wake();
      claims?.wake();
      await sweepSchedule?.stop(); // a sweep already running finishes before storage closes
      await Promise.all([planning?.done, claims?.done]);
      await queue.onIdle();
      await Promise.all(active);
      // Stopped: answers during the drain do not look (the next start's sweep writes their files).
      await finisher.stop();
      clearInterval(counting);
      await counter?.flush();
      log.info({ owner }, 'engine stopped');
    },
  };
}
