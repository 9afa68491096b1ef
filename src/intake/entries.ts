// Pass two, one entry at a time: parse, normalise and validate with the shared model, check
// the batch rules (position, MIT, declined), and turn an accepted entry into an order row.
import { randomUUID } from 'node:crypto';
import { validateBatchEntry, type BatchEntry, type ModelMode } from '../domain/index.ts';
import type { FieldError } from '../error-types.ts';
import { INTAKE_ERRORS } from './codes.ts';
import type { RejectedEntry } from './ack.ts';
import type { orders } from '../db/schema.ts';
import { declineFacts } from '../db/prior-attempts.ts';
import { scrubText } from '../scrub.ts';
import { maskIdentifier } from '../card-numbers.ts';
import { controlCharacterField, showControls } from '../domain/control-chars.ts';

export type OrderRow = typeof orders.$inferInsert;

export interface EntryContext {
  merchantId: string;
  batchId: string;
  mode: ModelMode;
  defaultExpiryDateUtc: string | undefined;
  /** When the file was received: the "now" of the entries' past-event times. */
  now: Date;
  /** How far ahead of `now` such a time may be (api.clockSkewSeconds). */
  clockSkewMs?: number | undefined;
  /**
   * The file's merchant: an entry naming another merchant's mid or siteId is rejected, as the
   * API answers 403 for the same body (orders/own-ids.ts).
   */
  owner?: { mid: string; siteIds: ReadonlySet<string> };
}

export type EntryOutcome = { ok: true; entry: BatchEntry } | { ok: false; rejected: RejectedEntry };

const intakeError = (field: string, code: keyof typeof INTAKE_ERRORS): FieldError => ({ field, code, message: INTAKE_ERRORS[code].message });

/** The API's code for the same problem (http/codes.ts), so one code means one thing everywhere. */
const MERCHANT_MISMATCH = 'ERR_API_MERCHANT_MISMATCH';

function ownerErrors(entry: BatchEntry, owner: EntryContext['owner']): FieldError[] {
  if (!owner) return [];
  const errors: FieldError[] = [];
  const message = (field: string) => `${field} is not one of this file's merchant's (the SFTP account's)`;
  if (entry.mid !== undefined && entry.mid.toLowerCase() !== owner.mid.toLowerCase()) errors.push({ field: 'mid', code: MERCHANT_MISMATCH, message: message('mid') });
  if (!owner.siteIds.has(entry.siteId.toLowerCase())) errors.push({ field: 'siteId', code: MERCHANT_MISMATCH, message: message('siteId') });
  return errors;
}

/** What an entry says about itself even when it is invalid: for the ack's rejected list. */
function identify(raw: unknown): { sequenceNumber: number | null; orderId: string | null } {
  const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const seq = Number(o.sequenceNumber ?? o.SequenceNumber);
  const orderId = o.orderId ?? o.OrderId;
  // The ack repeats the orderId: never a control character in it, nor a card number in clear.
  return { sequenceNumber: Number.isInteger(seq) ? seq : null, orderId: typeof orderId === 'string' ? maskIdentifier(showControls(orderId)) : null };
}

/**
 * Whether JSON text can hold a control character once parsed. JSON.parse refuses them raw
 * inside strings (U+0000–U+001F), so one can only come from an escape (a backslash) or be a
 * raw DEL: text with neither, the usual entry, needs no walk of its fields.
 */
export function mayHoldControls(text: string): boolean {
  return text.includes('\\') || text.includes('\u007f');
}

/**
 * `raw` is the parsed entry; `position` its 1-based position in `requests`; `text`, when
 * given, the JSON it was parsed from (see mayHoldControls).
 */
export function checkEntry(raw: unknown, position: number, ctx: EntryContext, text?: string): EntryOutcome {
  const result = validateBatchEntry(raw, { mode: ctx.mode, defaultExpiryDateUtc: ctx.defaultExpiryDateUtc, now: ctx.now, ...(ctx.clockSkewMs !== undefined ? { clockSkewMs: ctx.clockSkewMs } : {}) });
  const errors: FieldError[] = result.ok ? [] : [...result.errors];
  const value = result.ok ? result.value : undefined;
  const self = identify(raw);
  const found = text === undefined || mayHoldControls(text) ? controlCharacterField(raw) : undefined;
  // The field's path is made of the entry's own keys, which can hold a card number.
  const control = found === undefined ? undefined : scrubText(found);
  if (control) errors.unshift({ field: control, code: 'ERR_MODEL_FORMAT', message: 'must not contain control characters (NUL, escape, …)' });
  const seq = value?.sequenceNumber ?? self.sequenceNumber;
  if (seq !== null && seq !== undefined && seq !== position) errors.push(intakeError('sequenceNumber', 'ERR_INTAKE_SEQUENCE'));
  if (value && value.isMIT !== true) errors.push(intakeError('isMIT', 'ERR_INTAKE_NOT_MIT'));
  if (value && value.isDeclined !== true) errors.push(intakeError('isDeclined', 'ERR_INTAKE_NOT_DECLINED'));
  if (value) errors.push(...ownerErrors(value, ctx.owner));
  if (errors.length > 0 || !value) return { ok: false, rejected: { ...self, sequenceNumber: seq ?? null, errors } };
  return { ok: true, entry: value };
}

/** The order row of an accepted entry; `cardToken` is the vault token (never a card number). */
export function orderRow(entry: BatchEntry, cardToken: string, ctx: EntryContext): OrderRow {
  const { transaction: tx, paymentMethod: pm } = entry;
  // The entry is card-safe already (validateBatchEntry, domain/card-data.ts): the vault's token
  // takes the card number's place.
  const request = { ...entry, paymentMethod: { ...pm, cardNumber: cardToken, token: true } };
  return {
    id: randomUUID(),
    merchantId: ctx.merchantId,
    batchId: ctx.batchId,
    sequenceNumber: entry.sequenceNumber,
    orderId: entry.orderId,
    idempotencyKey: entry.idempotencyKey.toLowerCase(),
    kind: 'MIT',
    status: 'SUBMITTED',
    amount: tx.amount,
    currency: tx.currency,
    cardToken,
    cardBrand: pm.cardBrand,
    cardBin: pm.cardBinNumber,
    cardLast4: pm.cardLast4Digits,
    expiresAt: entry.expiryDateUtc ? new Date(entry.expiryDateUtc) : null,
    declineCode: tx.responseCode,
    declineSource: tx.responseCodeSource,
    ...declineFacts(tx, ctx.now),
    request,
    nextAttemptAt: ctx.now,
  };
}
