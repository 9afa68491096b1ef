// What a gateway's account updater says about a card, checked before it leaves a connector
// (GatewayAnswer.cardUpdate). Gateways send these as loose strings (Adyen's `expiryDate`
// "3/2030", `cardSummary` "1111"); a field that is not what it claims is dropped rather than
// passed on, and nothing that could be a card number survives: at most the last four digits
// (DESIGN.md §6), never a reference that holds a Luhn-valid run of 13–19 digits.
import { hasCardNumber } from '../card-numbers.ts';
import type { GatewayAnswer } from './connector.ts';

export type CardUpdate = NonNullable<GatewayAnswer['cardUpdate']>;

export interface CardUpdateFields {
  kind: CardUpdate['kind'];
  expMonth?: number | string | null;
  expYear?: number | string | null;
  last4?: string | null;
  gatewayReference?: string | null;
}

function month(value: number | string | null | undefined): number | undefined {
  const n = typeof value === 'string' ? (/^\s*\d{1,2}\s*$/.test(value) ? Number(value) : NaN) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 12 ? n : undefined;
}

/** Four digits; two are read as 20xx (some gateways send "30"). */
function year(value: number | string | null | undefined): number | undefined {
  const n = typeof value === 'string' ? (/^\s*(\d{2}|\d{4})\s*$/.test(value) ? Number(value) : NaN) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) return undefined;
  const full = n < 100 ? 2000 + n : n;
  return full >= 2000 && full <= 2099 ? full : undefined;
}

function last4(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && /^\d{4}$/.test(value.trim()) ? value.trim() : undefined;
}

function reference(value: string | null | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim();
  return v.length > 0 && v.length <= 200 && !hasCardNumber(v) ? v : undefined;
}

/** The update with only the fields that are what they claim to be. */
export function cardUpdate(fields: CardUpdateFields): CardUpdate {
  const m = month(fields.expMonth);
  const y = year(fields.expYear);
  const l4 = last4(fields.last4);
  const ref = reference(fields.gatewayReference);
  // An expiry is only useful whole.
  return { kind: fields.kind, ...(m && y ? { expMonth: m, expYear: y } : {}), ...(l4 ? { last4: l4 } : {}), ...(ref ? { gatewayReference: ref } : {}) };
}
