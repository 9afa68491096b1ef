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
// declinedAtOf: the transaction's own time, never after it reached us (the same rule as an order's decline).
import { declinedAtOf, encodePriorAttempts } from '../db/prior-attempts.ts';
import { carriesFullNumber } from '../vault/full-number.ts';

/** The vault's keyed fingerprint of a full card number (never stored, never logged). */
export type Fingerprint = (pan: string) => string;

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

/**
 * The card the merchant's payment was on, for the card's windows: the vault token it named, or
 * the fingerprint of the full number it sent (the number itself is dropped).
 */
function cardOf(pm: TransmitRequest['paymentMethod'], fingerprint: Fingerprint | undefined): Pick<TransmitRow, 'cardToken' | 'cardFingerprint'> {
  if (!pm || typeof pm.cardNumber !== 'string' || pm.cardNumber === '') return { cardToken: null, cardFingerprint: null };
  if (!carriesFullNumber({ cardNumber: pm.cardNumber, token: pm.token })) return { cardToken: pm.cardNumber, cardFingerprint: null };
  return { cardToken: null, cardFingerprint: fingerprint ? fingerprint(pm.cardNumber.replace(/[\s-]/g, '')) : null };
}

type LenientPrior = { timestampUtc?: string | undefined; responseCode?: string | undefined; merchantAdviceCode?: string | undefined };

/** The earlier tries a lenient transmit gave whole (a time and a code); the others say too little to count. */
function completePriors(list: readonly LenientPrior[] | undefined) {
  return list?.flatMap((p) => (p.timestampUtc && p.responseCode && !Number.isNaN(Date.parse(p.timestampUtc)) ? [{ timestampUtc: p.timestampUtc, responseCode: p.responseCode, merchantAdviceCode: p.merchantAdviceCode }] : []));
}

export function transmitRow(merchantId: string, r: TransmitRequest, now: Date, fingerprint?: Fingerprint): TransmitRow {
  const local = localTime(r.transaction.timestampUtc, r.transaction.timezoneUtcOffset);
  const pm = r.paymentMethod;
  // A full card number is never kept: only BIN and last four of the payment method survive.
  const request = pm ? { ...r, paymentMethod: { ...pm, cardNumber: undefined } } : r;
  return {
    id: randomUUID(), merchantId, orderId: r.orderId, approved: approvedOf(r), amount: r.transaction.amount ?? null,
    currency: r.transaction.currency ?? null, cardBin: pm?.cardBinNumber ?? null, cardBrand: pm?.cardBrand ?? null,
    cardType: pm?.cardType ? pm.cardType.toLowerCase() : null, localHour: local ? local.getUTCHours() : null,
    localDayOfMonth: local ? local.getUTCDate() : null, request, createdAt: now,
    ...cardOf(pm, fingerprint), authorizedAt: declinedAtOf(r.transaction.timestampUtc, now), initiator: r.isMIT === true ? 'MIT' : 'CIT',
    declineSource: r.transaction.responseCodeSource ?? null, priorAttempts: encodePriorAttempts(completePriors(r.transaction.priorAttempts)),
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

export function createTransmitBuffer(deps: { db: Db; clock: Clock; log: Logger; mode: ModelMode; settings: TransmitSettings; ownIds: OwnIdsCheck; fingerprint?: Fingerprint }): TransmitBuffer {
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
    const row = transmitRow(merchantId, v.value, deps.clock.now(), deps.fingerprint);
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
