// What the router reads from an order's stored request: the merchant's routing hints
// (additionalFields), the gateway that declined, and the stored-credential facts a gateway's
// MIT fields need. Pure, and tolerant of an absent or partial request (older orders).

import type { OrderFacts } from './types.ts';

interface RequestView {
  orderId?: string;
  isRecurring?: boolean;
  additionalFields?: { key?: unknown; value?: unknown }[];
  transaction?: { responseCodeSource?: string; processorName?: string };
  subscription?: { schemeTransactionId?: string };
  paymentMethod?: { holderName?: string; expirationMonth?: number; expirationYear?: number };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

export function orderFacts(request: unknown): OrderFacts {
  const r = (request ?? {}) as RequestView;
  const fields: Record<string, string> = {};
  for (const f of r.additionalFields ?? []) {
    const key = text(f.key);
    const value = text(f.value);
    if (key && value) fields[key] = value;
  }
  const facts: OrderFacts = { fields };
  const set = <K extends keyof OrderFacts>(k: K, v: OrderFacts[K] | undefined) => {
    if (v !== undefined) facts[k] = v;
  };
  set('orderId', text(r.orderId));
  set('declineSource', text(r.transaction?.responseCodeSource));
  set('processorName', text(r.transaction?.processorName));
  set('isRecurring', typeof r.isRecurring === 'boolean' ? r.isRecurring : undefined);
  set('schemeTransactionId', text(r.subscription?.schemeTransactionId));
  set('holderName', text(r.paymentMethod?.holderName));
  set('expMonth', typeof r.paymentMethod?.expirationMonth === 'number' ? r.paymentMethod.expirationMonth : undefined);
  set('expYear', typeof r.paymentMethod?.expirationYear === 'number' ? r.paymentMethod.expirationYear : undefined);
  return facts;
}

/** The additionalFields keys the router reads (README "Processor accounts"). */
export const FIELD_ACCOUNT = 'processorAccount';
export const FIELD_PAYMENT_METHOD = 'processor.paymentMethod';
export const FIELD_CUSTOMER = 'processor.customer';
