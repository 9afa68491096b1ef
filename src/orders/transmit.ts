// /transmit records: validated leniently, answered 202 at once, kept in memory and stored in
// bulk (a full batch at once, the rest every flush interval, everything on stop), with the
// merchant model's counters (approvals by local hour, day of month, BIN and card type).
import { randomUUID } from 'node:crypto';
import { validateTransmit, type TransmitRequest, type ModelMode } from '../domain/index.ts';
import { RescuedError } from '../errors.ts';
import type { Db } from '../db/client.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { OwnIdsCheck, Owner } from './own-ids.ts';
import { insertTransmits, type StatIncrement, type TransmitRow } from '../db/queries/insert-transmits.ts';

export interface TransmitSettings {
  transmitFlushIntervalMs: number;
  transmitBatchSize: number;
  transmitMaxBuffered: number;
}

/** Local time of the payer: offsets up to ±14 are hours, larger ones minutes (as the planner reads them). */
function localTime(timestampUtc: string | undefined, offset: number | undefined): Date | undefined {
  if (!timestampUtc) return undefined;
  const t = new Date(timestampUtc).getTime();
  if (Number.isNaN(t)) return undefined;
  const o = offset ?? 0;
  return new Date(t + (Math.abs(o) <= 14 ? o * 3_600_000 : o * 60_000));
}

function approvedOf(r: TransmitRequest): boolean {
  const s = r.transaction.responseStatus?.toLowerCase();
  return r.isDeclined !== true && (s === undefined || s === 'approved' || s === 'captured' || s === 'authorized');
}

export function transmitRow(merchantId: string, r: TransmitRequest, now: Date): TransmitRow {
  const local = localTime(r.transaction.timestampUtc, r.transaction.timezoneUtcOffset);
  const pm = r.paymentMethod;
  // A full card number is never kept: only BIN and last four of the payment method survive.
  const request = pm ? { ...r, paymentMethod: { ...pm, cardNumber: undefined } } : r;
  return {
    id: randomUUID(), merchantId, orderId: r.orderId, approved: approvedOf(r), amount: r.transaction.amount ?? null,
    currency: r.transaction.currency ?? null, cardBin: pm?.cardBinNumber ?? null, cardBrand: pm?.cardBrand ?? null,
    cardType: pm?.cardType ? pm.cardType.toLowerCase() : null, localHour: local ? local.getUTCHours() : null,
    localDayOfMonth: local ? local.getUTCDate() : null, request, createdAt: now,
  };
}

export function statIncrements(rows: readonly TransmitRow[]): StatIncrement[] {
  const sums = new Map<string, StatIncrement>();
  const add = (r: TransmitRow, dimension: string, bucket: string | number | null) => {
    if (bucket === null) return;
    const k = `${r.merchantId}\u0000${dimension}\u0000${bucket}`;
    const s = sums.get(k) ?? { merchantId: r.merchantId, dimension, bucket: String(bucket), approvals: 0, total: 0 };
    s.total += 1;
    if (r.approved) s.approvals += 1;
    sums.set(k, s);
  };
  for (const r of rows) {
    add(r, 'hour', r.localHour);
    add(r, 'day', r.localDayOfMonth);
    add(r, 'bin', r.cardBin);
    add(r, 'card_type', r.cardType);
  }
  return [...sums.values()];
}

export interface TransmitBuffer {
  accept(owner: Owner, body: unknown): Promise<{ transmitId: string; warnings: unknown[] }>;
  flush(): Promise<void>;
  stop(): Promise<void>;
  readonly buffered: number;
}

export function createTransmitBuffer(deps: { db: Db; clock: Clock; log: Logger; mode: ModelMode; settings: TransmitSettings; ownIds: OwnIdsCheck }): TransmitBuffer {
  let rows: TransmitRow[] = [];
  let flushing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => void flush(), deps.settings.transmitFlushIntervalMs);
  timer.unref();

  async function write(batch: TransmitRow[]): Promise<void> {
    try {
      await insertTransmits(deps.db, batch, statIncrements(batch), deps.clock.now());
    } catch (err) {
      // A transmit was answered 202 already: the record is lost, which is logged, not retried forever.
      deps.log.error({ err, records: batch.length }, 'transmit records not stored');
    }
  }

  // Flushes run one after another, so records are stored in arrival order.
  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      while (rows.length > 0) {
        const batch = rows.slice(0, deps.settings.transmitBatchSize);
        rows = rows.slice(batch.length);
        await write(batch);
      }
    });
    return flushing;
  }

  async function accept(owner: Owner, body: unknown) {
    const v = validateTransmit(body, { mode: deps.mode });
    if (!v.ok) throw new RescuedError('ERR_MODEL_INVALID', undefined, v.errors);
    await deps.ownIds(owner, { mid: v.value.mid, siteId: v.value.siteId });
    const merchantId = owner.merchantId;
    if (rows.length >= deps.settings.transmitMaxBuffered) throw new RescuedError('ERR_API_TRANSMIT_BUSY');
    const row = transmitRow(merchantId, v.value, deps.clock.now());
    rows.push(row);
    if (rows.length >= deps.settings.transmitBatchSize) void flush();
    return { transmitId: row.id, warnings: v.warnings };
  }

  return {
    accept,
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
    get buffered() {
      return rows.length;
    },
  };
}
