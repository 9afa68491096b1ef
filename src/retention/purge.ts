// The purge (PCI DSS 3.2.1, docs/operations.md "Retention"): every class of data past its
// retention period (config `retention`), removed in batches of short transactions under one
// advisory lock, so one replica purges at a time and the others skip the round. The same
// function answers `rescued purge --dry-run` (counts, nothing removed), `rescued purge` and
// the daemon's sweep (src/retention/stage.ts).
import type { Clock } from '../clock.ts';
import type { ResolvedConfig } from '../config/index.ts';
import { archiveDir, quarantineDir } from '../config/paths.ts';
import type { Database, Db } from '../db/client.ts';
import {
  countPurgeableBatches, countPurgeableOrders, countTransmits, merchantIds, purgeBatches, purgeEvents, purgeIntakeStarts, purgeOrders, purgeTransmits,
} from '../db/queries/purge.ts';
import { DAY_MS } from '../calendar.ts';
import { countCardsToDelete, deleteUnneeded } from '../vault/card-retention.ts';
import { userDirs } from '../sftp/paths.ts';
import { listHomes, sweepFiles, type FileSweep } from './files.ts';

export const PURGE_CLASSES = [
  'orders', 'attempts', 'webhookEvents', 'webhookDeliveries', 'batches', 'transmits', 'cards', 'intakeStarts', 'archiveFiles', 'outboundFiles', 'quarantineFiles',
] as const;
export type PurgeClass = (typeof PURGE_CLASSES)[number];

/** Which retention period each class follows. */
type Period = 'orderDays' | 'cardDays' | 'webhookDays' | 'transmitDays' | 'archiveDays' | 'outboundDays' | 'quarantineDays';
const PERIOD: Record<PurgeClass, Period> = {
  orders: 'orderDays', attempts: 'orderDays', batches: 'orderDays', webhookEvents: 'webhookDays', webhookDeliveries: 'webhookDays', transmits: 'transmitDays',
  cards: 'cardDays', intakeStarts: 'quarantineDays', archiveFiles: 'archiveDays', outboundFiles: 'outboundDays', quarantineFiles: 'quarantineDays',
};

/** Advisory lock of the purge ("rsw" + 5, beside the sweeps' keys in src/engine/sweeps.ts). */
export const PURGE_LOCK = 0x72737705n;

export type Settings = ResolvedConfig['retention'];

export interface PurgeDeps {
  database: Database;
  clock: Clock;
  settings: Settings;
  dataDir: string;
  /** The SFTP data root holding each merchant's outbound/. */
  sftpRoot: string;
}

export interface ClassReport {
  /** Data older than this goes. */
  cutoff: string;
  /** Rows or files removed (would be, in a dry run). */
  count: number;
  /** Transactions that removed rows (0 in a dry run and for files). */
  batches: number;
}

export interface PurgeReport {
  dryRun: boolean;
  /** The time the cut-offs are counted back from. */
  at: string;
  classes: Record<PurgeClass, ClassReport>;
}

export interface PurgeOptions {
  dryRun: boolean;
  /** After each transaction, with the class and the rows it removed. */
  onBatch?: (cls: PurgeClass, rows: number) => void | Promise<void>;
  /** Asked before each transaction: true ends the run there (the daemon is stopping); the next run goes on. */
  shouldStop?: () => boolean;
}

type Tally = Record<PurgeClass, ClassReport>;

function cutoffs(settings: Settings, now: Date): Tally {
  const t = {} as Tally;
  for (const c of PURGE_CLASSES) t[c] = { cutoff: new Date(now.getTime() - settings[PERIOD[c]] * DAY_MS).toISOString(), count: 0, batches: 0 };
  return t;
}

const cut = (t: Tally, c: PurgeClass) => new Date(t[c].cutoff);

/**
 * Runs the purge, or only counts (dryRun). Undefined when another instance holds the lock
 * (a dry run takes none: it reads).
 */
export async function runPurge(deps: PurgeDeps, opts: PurgeOptions): Promise<PurgeReport | undefined> {
  const at = deps.clock.now();
  const t = cutoffs(deps.settings, at);
  if (opts.dryRun) {
    await countAll(deps, t);
    await sweepAllFiles(deps, t, true);
  } else {
    const release = await deps.database.tryLock(PURGE_LOCK);
    if (!release) return undefined;
    try {
      await purgeRows(deps, t, opts);
      // Under the lock too: replicas share the data root (DESIGN.md §4).
      if (!opts.shouldStop?.()) await sweepAllFiles(deps, t, false);
    } finally {
      await release();
    }
  }
  return { dryRun: opts.dryRun, at: at.toISOString(), classes: t };
}

async function countAll(deps: PurgeDeps, t: Tally): Promise<void> {
  const db = deps.database.db;
  const o = await countPurgeableOrders(db, cut(t, 'orders'), cut(t, 'webhookEvents'));
  t.orders.count = o.orders;
  t.attempts.count = o.attempts;
  t.webhookEvents.count = o.events;
  t.webhookDeliveries.count = o.deliveries;
  t.batches.count = await countPurgeableBatches(db, cut(t, 'batches'));
  t.transmits.count = await countTransmits(db, cut(t, 'transmits'));
  t.cards.count = await countCardsToDelete(db, cut(t, 'cards'));
  t.intakeStarts.count = await purgeIntakeStarts(db, cut(t, 'intakeStarts'), true);
}

function add(t: Tally, c: PurgeClass, n: number): void {
  t[c].count += n;
  if (n > 0) t[c].batches++;
}

/** Batches until one comes back short; each is one transaction. */
async function untilShort(db: Db, limit: number, stop: () => boolean, step: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<number>): Promise<void> {
  while (!stop()) {
    const n = await db.transaction(step);
    if (n < limit) return;
  }
}

async function purgeRows(deps: PurgeDeps, t: Tally, opts: PurgeOptions): Promise<void> {
  const onBatch = opts.onBatch ?? (() => {});
  const db = deps.database.db;
  const limit = deps.settings.batchSize;
  const stop = opts.shouldStop ?? (() => false);
  // Cards first: the rule reads the orders and attempts that are still there, as the dry run did.
  const cards = await deleteUnneeded(db, cut(t, 'cards'), limit, async (n) => {
    if (n > 0) await onBatch('cards', n);
  }, stop);
  t.cards.count = cards.deleted;
  t.cards.batches = cards.batches;
  // Webhook events by merchant (their index), then orders with whatever still names them.
  const merchants = await merchantIds(db);
  for (const m of merchants) {
    await untilShort(db, limit, stop, async (tx) => {
      const [events, deliveries] = await purgeEvents(tx, m, cut(t, 'webhookEvents'), limit);
      add(t, 'webhookEvents', events);
      t.webhookDeliveries.count += deliveries;
      if (events > 0) await onBatch('webhookEvents', events);
      return events;
    });
  }
  await untilShort(db, limit, stop, async (tx) => {
    const o = await purgeOrders(tx, cut(t, 'orders'), limit);
    add(t, 'orders', o.orders);
    add(t, 'attempts', o.attempts);
    t.webhookEvents.count += o.events;
    t.webhookDeliveries.count += o.deliveries;
    if (o.orders > 0) await onBatch('orders', o.orders);
    return o.orders;
  });
  await untilShort(db, limit, stop, async (tx) => counted(t, 'batches', await purgeBatches(tx, cut(t, 'batches'), limit), onBatch));
  for (const m of merchants) {
    await untilShort(db, limit, stop, async (tx) => counted(t, 'transmits', await purgeTransmits(tx, m, cut(t, 'transmits'), limit), onBatch));
  }
  add(t, 'intakeStarts', await purgeIntakeStarts(db, cut(t, 'intakeStarts'), false));
}

async function counted(t: Tally, c: PurgeClass, n: number, onBatch: NonNullable<PurgeOptions['onBatch']>): Promise<number> {
  add(t, c, n);
  if (n > 0) await onBatch(c, n);
  return n;
}

async function sweepAllFiles(deps: PurgeDeps, t: Tally, dryRun: boolean): Promise<void> {
  const sweeps: Array<[PurgeClass, FileSweep]> = [
    ['archiveFiles', { dir: archiveDir(deps.dataDir), depth: 2, matches: () => true }],
    ['quarantineFiles', { dir: quarantineDir(deps.dataDir), depth: 2, matches: () => true }],
  ];
  for (const home of await listHomes(deps.sftpRoot)) {
    let outbound: string;
    try {
      outbound = userDirs(deps.sftpRoot, home).outbound;
    } catch {
      continue; // not a merchant's home (its name could never be a username)
    }
    sweeps.push(['outboundFiles', { dir: outbound, depth: 0, matches: (name) => name.endsWith('.ack.json') || name.endsWith('.results.json') }]);
  }
  for (const [c, sweep] of sweeps) t[c].count += (await sweepFiles(sweep, cut(t, c), dryRun)).files;
}
