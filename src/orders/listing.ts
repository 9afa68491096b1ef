// Finding and listing orders: one input schema for GET /v1/orders's query and `rescued orders
// list|find` (the TypeScript type derived from it), its validation, the opaque cursor, and a
// page of orders with the cursor of the next one. Every caller names its merchant, or (the
// operator's CLI) none.
import { Type, type Static } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { fromAjv } from '../domain/field-errors.ts';
import { leafCheck } from '../domain/checks.ts';
import { toUtcDateTime } from '../domain/dates.ts';
import { STATUSES } from '../domain/states.ts';
import type { FieldError } from '../error-types.ts';
import { RescuedError } from '../errors.ts';
import type { Db } from '../db/client.ts';
import { keyOf, listOrders, type OrderKey, type OrderListFilter, type OrderListRow } from '../db/queries/list-orders.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';

export const MAX_PAGE = 500;
export const DEFAULT_PAGE = 50;

export const OrderListQuerySchema = Type.Object({
  orderId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The merchant\'s own orderId: the order that has it, or 404.' })),
  status: Type.Optional(Type.Unsafe<(typeof STATUSES)[number]>({ type: 'string', enum: [...STATUSES], description: STATUSES.join(', ') })),
  batchId: Type.Optional(Type.String({ format: 'uuid', description: 'Only this batch\'s orders, in sequenceNumber order.' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after: ISO 8601 (RFC 1123 too), or a duration back from now (90m, 24h, 7d).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE, description: 'Orders per page.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'nextCursor of the previous page.' })),
});

export type OrderListQuery = Static<typeof OrderListQuerySchema>;

const KEYS = Object.keys(OrderListQuerySchema.properties) as Array<keyof OrderListQuery>;
const STATUS_SET: ReadonlySet<string> = new Set(STATUSES);

// Each field's check, from its schema, without Ajv (domain/checks.ts: the same conditions Ajv
// runs): a valid query, nearly every one, is answered without loading Ajv, which was a fifth of
// `rescued orders list` (issue 28). status is an enum and is checked against STATUSES; a
// default is no condition. A query that fails is run through Ajv, loaded then, for its words.
const FIELD_OK: Readonly<Record<string, (v: unknown) => boolean>> = Object.fromEntries(
  KEYS.map((key) => {
    if (key === 'status') return [key, (v: unknown) => typeof v === 'string' && STATUS_SET.has(v)];
    const { default: _default, ...schema } = OrderListQuerySchema.properties[key] as Record<string, unknown>;
    return [key, leafCheck(schema as never, key)];
  }),
);

let validator: ValidateFunction<OrderListQuery> | undefined;
async function ajvErrors(input: Record<string, unknown>): Promise<FieldError[]> {
  validator ??= (await import('../domain/formats.ts')).compile<OrderListQuery>(OrderListQuerySchema);
  const errors: FieldError[] = [];
  if (!validator(input)) fromAjv(validator.errors, errors);
  return errors;
}
const DURATION_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `since` as a canonical UTC time: a duration counts back from `now`; anything unreadable is left for the schema to refuse. */
function sinceText(value: unknown, now: Date): unknown {
  if (typeof value !== 'string') return value;
  const rel = /^(\d{1,6})\s*([mhd])$/.exec(value.trim());
  if (rel) return new Date(now.getTime() - Number(rel[1]) * DURATION_MS[rel[2]!]!).toISOString();
  return toUtcDateTime(value) ?? value;
}

/**
 * The query as sent (strings, from a URL or the command line) → its typed value, or
 * ERR_MODEL_INVALID naming each bad field. Keys the schema does not know are ignored, as a
 * cache-busting parameter should be.
 */
export async function parseOrderQuery(raw: Record<string, unknown>, now: Date): Promise<OrderListQuery> {
  const input: Record<string, unknown> = {};
  for (const key of KEYS) if (raw[key] !== undefined && raw[key] !== '') input[key] = raw[key];
  if (typeof input.limit === 'string' && /^\d{1,9}$/.test(input.limit)) input.limit = Number(input.limit);
  if (typeof input.status === 'string') input.status = input.status.toUpperCase();
  if (input.since !== undefined) input.since = sinceText(input.since, now);
  if (Object.entries(input).every(([key, value]) => FIELD_OK[key]!(value))) return input as OrderListQuery;
  const errors = await ajvErrors(input);
  if (errors.length === 0) return input as OrderListQuery;
  for (const e of errors) if (e.field === 'status') e.message = `status must be one of ${STATUSES.join(', ')}.`;
  throw new RescuedError('ERR_MODEL_INVALID', `Invalid query: ${errors.map((e) => e.message).join(' ')}`, errors);
}

/** A key of the order listing, checked field by field: a cursor is client input. */
function orderKey(value: unknown, inBatch: boolean): OrderKey | undefined {
  const v = value as Record<string, unknown>;
  if (inBatch) return Number.isSafeInteger(v.s) && (v.s as number) >= 0 ? { sequenceNumber: v.s as number } : undefined;
  const timeOk = typeof v.t === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(v.t);
  const idOk = typeof v.i === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v.i);
  return timeOk && idOk ? { createdAt: v.t as string, id: v.i as string } : undefined;
}

const cursorOf = (key: OrderKey) => encodeCursor('sequenceNumber' in key ? { s: key.sequenceNumber } : { t: key.createdAt, i: key.id });

export interface OrderPage {
  orders: OrderListRow[];
  /** Hand back as `cursor` for the next page; null when this page is the last. */
  nextCursor: string | null;
}

/**
 * A page of orders. One more row than asked for is read, so the last page says so itself
 * instead of leaving the caller a page of nothing to fetch.
 */
export async function orderPage(db: Db, merchantId: string | undefined, q: OrderListQuery, extra: Pick<OrderListFilter, 'declines'> = {}): Promise<OrderPage> {
  const inBatch = q.batchId !== undefined;
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor, (v) => orderKey(v, inBatch));
  const limit = q.limit ?? DEFAULT_PAGE;
  const since = q.since === undefined ? undefined : new Date(q.since);
  const rows = await listOrders(db, { merchantId, status: q.status, batchId: q.batchId?.toLowerCase(), since, orderId: q.orderId, ...extra }, after, limit + 1);
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { orders: page, nextCursor: more ? cursorOf(keyOf(page.at(-1)!, inBatch)) : null };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An order as a listing shows it (API and CLI alike): no request, no card beyond brand and last four. */
export function orderListItem(o: OrderListRow) {
  return {
    orderSessionKey: o.id,
    orderId: o.orderId,
    mid: o.mid,
    batchId: o.batchId,
    sequenceNumber: o.sequenceNumber,
    kind: o.kind,
    status: o.status,
    reason: o.statusReason,
    amount: o.amount,
    currency: o.currency,
    refundedAmount: o.refundedAmount,
    attempts: o.attemptCount,
    confirmationId: o.confirmationId,
    card: { brand: o.cardBrand, last4: o.cardLast4 },
    nextAttemptAt: o.status === 'SUBMITTED' || o.status === 'PENDING' ? iso(o.nextAttemptAt) : null,
    expiresAt: iso(o.expiresAt),
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    finishedAt: iso(o.finishedAt),
  };
}

export type OrderListItem = ReturnType<typeof orderListItem>;
