// COPY of a chunk of orders on PostgreSQL: the fast path of batch intake. Measured here with
// 1.8 KB requests and the table's six indexes, 20,000 rows: COPY about 20,000 rows/s, the
// json_populate_recordset INSERT about 10,000 (its JSON expansion costs more than the rows).
//
// COPY cannot skip duplicates the way INSERT … ON CONFLICT DO NOTHING does, so each chunk runs
// in a savepoint: when COPY fails (a repeated orderId or idempotencyKey, or anything else), the
// chunk is rolled back and the caller inserts it the careful way, which names the duplicates or
// raises the real error.
//
// Two postgres-js behaviours shape the code:
// - It loses an error the server raises after the client has ended a COPY stream: the
//   stream's `finish` never fires and nothing rejects. So the end of the COPY is not awaited
//   on the stream; a statement sent after it on the same connection is the sentinel, and fails
//   ("current transaction is aborted") exactly when the COPY did. The protocol guarantees the
//   order: the server answers the COPY before it runs the next statement.
// - Inside `begin`, any failed statement fails the whole transaction at its end, even when
//   the caller caught the error; only a `savepoint` scope contains it. Its savepoint is never
//   released, though, and thousands of open nested savepoints would slow every snapshot on the
//   server. So the scope runs inside a savepoint of our own, whose RELEASE also releases the
//   scope's (RELEASE drops every savepoint established after the one named).
import type { Writable } from 'node:stream';
import type { orders } from '../schema.ts';

export interface CopyClient {
  unsafe(text: string, params?: unknown[]): Promise<unknown> & { writable(): Promise<Writable> };
  savepoint<T>(fn: (scope: CopyClient) => Promise<T>): Promise<T>;
}

export const ORDER_COLUMNS = [
  'id', 'merchant_id', 'batch_id', 'sequence_number', 'order_id', 'idempotency_key', 'kind', 'status', 'amount', 'currency',
  'card_token', 'card_brand', 'card_bin', 'card_last4', 'expires_at', 'decline_code', 'decline_source', 'declined_at', 'decline_advice',
  'prior_attempts', 'request', 'next_attempt_at',
] as const;

/** An order row as the record of its columns (COPY here, json_populate_recordset in insert-orders.ts). */
export function orderRecord(r: typeof orders.$inferInsert) {
  return {
    id: r.id, merchant_id: r.merchantId, batch_id: r.batchId ?? null, sequence_number: r.sequenceNumber ?? null, order_id: r.orderId,
    idempotency_key: r.idempotencyKey, kind: r.kind, status: r.status, amount: r.amount, currency: r.currency, card_token: r.cardToken,
    card_brand: r.cardBrand ?? null, card_bin: r.cardBin ?? null, card_last4: r.cardLast4 ?? null, expires_at: r.expiresAt ?? null,
    decline_code: r.declineCode, decline_source: r.declineSource, declined_at: r.declinedAt ?? null, decline_advice: r.declineAdvice ?? null,
    prior_attempts: r.priorAttempts ?? null, request: r.request, next_attempt_at: r.nextAttemptAt ?? null,
  };
}

/** The COPY statement for rows encoded by `copyLines`. */
export const COPY_ORDERS = `copy orders (${ORDER_COLUMNS.join(', ')}) from stdin`;
const SAVEPOINT = 'rescued_copy_orders';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One value in COPY's text format: `\N` for null, backslash escapes for the four specials. */
export function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const text = value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[\\\n\r\t]/.test(text) ? text.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!) : text;
}

/** One row (a record keyed by ORDER_COLUMNS) as a COPY text line, with its newline. */
function copyLine(r: Record<(typeof ORDER_COLUMNS)[number], unknown>): string {
  let line = '';
  for (let i = 0; i < ORDER_COLUMNS.length; i++) line += (i === 0 ? '' : '\t') + copyText(r[ORDER_COLUMNS[i]!]);
  return `${line}\n`;
}

/** Rows (as records keyed by ORDER_COLUMNS) as COPY text lines. */
export function copyLines(records: Array<Record<(typeof ORDER_COLUMNS)[number], unknown>>): string {
  let out = '';
  for (const r of records) out += copyLine(r);
  return out;
}

/**
 * The lines of `copyLines` as UTF-8 bytes in an ArrayBuffer of their own (never Buffer's shared
 * pool), a row at a time, so the intake worker encodes each entry as it is parsed (the entry is
 * then garbage while still young) and hands the bytes over by transfer: posting the text as a
 * string cost the worker 12 % of its time (the clone of a cons string of a chunk's lines), and
 * writing it to the socket encoded it again on the daemon's thread (docs/performance.md "Batch intake").
 */
export class CopyBytes {
  private buf: Buffer;
  private at = 0;
  rows = 0;
  private readonly rowBytes: number;
  constructor(rowBytes = 2048) {
    this.rowBytes = rowBytes;
    this.buf = Buffer.from(new ArrayBuffer(16 * rowBytes));
  }

  add(r: Record<(typeof ORDER_COLUMNS)[number], unknown>): void {
    const line = copyLine(r);
    // UTF-8 takes at most 3 bytes per UTF-16 unit: room for the line is made before writing it.
    if (this.at + line.length * 3 > this.buf.length) {
      const bigger = Buffer.from(new ArrayBuffer(Math.max(this.buf.length * 2, this.at + line.length * 3)));
      this.buf.copy(bigger, 0, 0, this.at);
      this.buf = bigger;
    }
    this.at += this.buf.write(line, this.at);
    this.rows++;
  }

  /** The bytes so far (their buffer is the caller's to transfer); this starts again empty. */
  take(): Uint8Array {
    const bytes = new Uint8Array(this.buf.buffer, 0, this.at);
    // The next chunk is likely the size of this one: room for it and an eighth more.
    this.buf = Buffer.from(new ArrayBuffer(Math.max(16 * this.rowBytes, Math.ceil(this.at * 1.125))));
    [this.at, this.rows] = [0, 0];
    return bytes;
  }
}

/** The lines of COPY bytes whose `keep` is true (values escape '\n', so each 0x0a ends a row). */
export function keepLines(bytes: Uint8Array, keep: readonly boolean[]): Buffer {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kept: Buffer[] = [];
  for (let start = 0, i = 0; start < buf.length; i++) {
    const newline = buf.indexOf(0x0a, start);
    const end = newline < 0 ? buf.length : newline + 1;
    if (keep[i]) kept.push(buf.subarray(start, end));
    start = end;
  }
  return Buffer.concat(kept);
}

/**
 * postgres-js builds its COPY writable with `autoDestroy: true`, and Node destroys a finished
 * stream with no error, which postgres-js answers by sending CopyFail("null"). PostgreSQL drops
 * a CopyFail outside COPY mode, but one COPY sent right behind another (store-copy.ts) is in
 * COPY mode by then and fails with "COPY from stdin failed: null" (xtdb/xtdb#6079 describes the
 * same message). A stream destroyed on purpose (an error) still sends its CopyFail.
 */
function keepOpenAfterFinish(stream: Writable): void {
  (stream as unknown as { _writableState: { autoDestroy: boolean } })._writableState.autoDestroy = false;
}

/** The bytes of one CopyData message (sendCopy). */
const COPY_PIECE = 1 << 20;

/**
 * Writes `data` and ends the stream; rejects if postgres-js destroys it (the server refused mid-stream).
 * Resolves once the data is on the socket: postgres-js refuses any statement on the connection
 * (COPY_IN_PROGRESS) until then.
 */
export function sendCopy(stream: Writable, data: string | Uint8Array): Promise<void> {
  keepOpenAfterFinish(stream);
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    const done = (err?: Error | null) => (err ? reject(err) : resolve());
    if (typeof data === 'string') stream.write(data, done);
    else {
      // postgres-js copies each write twice (its message builder, then its write buffer): in
      // pieces, a chunk's rows (2 MB at 1,000 entries) are not held three times over while sent.
      for (let at = 0; at < data.length; at += COPY_PIECE) {
        const last = at + COPY_PIECE >= data.length;
        stream.write(data.subarray(at, at + COPY_PIECE), last ? done : undefined);
      }
      if (data.length === 0) resolve();
    }
    stream.end();
  });
}

/**
 * COPYs the rows inside a savepoint on a transaction's connection. True when every row was
 * stored; false when the COPY failed and was rolled back, leaving the transaction as it was.
 */
export async function copyOrders(client: CopyClient, records: Array<Record<(typeof ORDER_COLUMNS)[number], unknown>>): Promise<boolean> {
  await client.unsafe(`savepoint ${SAVEPOINT}`);
  const stored = await client
    .savepoint(async (scope) => {
      const stream = await scope.unsafe(COPY_ORDERS).writable();
      await sendCopy(stream, copyLines(records));
      await scope.unsafe('select 1');
      return true;
    })
    .catch(() => false);
  await client.unsafe(`release savepoint ${SAVEPOINT}`);
  return stored;
}
