// Which table reads a decline's code: `responseCodeSource` is free text from the merchant
// ("Stripe", "STRIPE", "Authorize.Net", "NA", a processor or network name...). Known gateways
// get their own table; everything else is read as ISO 8583 when the code looks like a DE39
// value and by its description otherwise (DESIGN.md §3: ISO 8583 is the default table).
import type { Row } from './reasons.ts';
import { lookupAdyen } from './codes/adyen.ts';
import { lookupAuthorizeNet } from './codes/authorizenet.ts';
import { lookupBraintree } from './codes/braintree.ts';
import { lookupCheckoutCom } from './codes/checkoutcom.ts';
import { looksLikeIsoCode, lookupIso, normaliseIsoCode } from './codes/iso8583.ts';
import { lookupNmi } from './codes/nmi.ts';
import { lookupStripe } from './codes/stripe.ts';

export const GATEWAY_SOURCES = ['stripe', 'braintree', 'adyen', 'nmi', 'authorizenet', 'checkoutcom'] as const;
export type GatewaySource = (typeof GATEWAY_SOURCES)[number];
export type TableSource = GatewaySource | 'iso8583';
export type ClassificationSource = TableSource | 'text' | 'default';

// Names are compared lower-cased with everything but letters and digits removed, so
// "Authorize.Net", "authorize-net" and "AUTHORIZENET" are one name.
const ALIASES: Record<string, GatewaySource> = {
  stripe: 'stripe',
  braintree: 'braintree',
  braintreegateway: 'braintree',
  paypalbraintree: 'braintree',
  adyen: 'adyen',
  nmi: 'nmi',
  networkmerchants: 'nmi',
  authorizenet: 'authorizenet',
  authnet: 'authorizenet',
  authorize: 'authorizenet',
  checkoutcom: 'checkoutcom',
  checkout: 'checkoutcom',
  cko: 'checkoutcom',
};

export function sourceKey(responseCodeSource: string | null | undefined): string {
  return (responseCodeSource ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The gateway a source names, if any; ISO, networks, processors and "NA" name none. */
export function gatewayOf(responseCodeSource: string | null | undefined): GatewaySource | undefined {
  return ALIASES[sourceKey(responseCodeSource)];
}

export interface TableMatch {
  source: TableSource;
  code: string;
  row: Row;
  /** The raw ISO code the gateway code stands for, where the gateway documents one. */
  impliedIso?: string;
}

/** Look the code up in the table its source names; undefined sends the caller to free text. */
export function lookupCode(responseCodeSource: string | null | undefined, responseCode: string | null | undefined): TableMatch | undefined {
  const code = (responseCode ?? '').trim();
  if (code === '') return undefined;
  const gateway = gatewayOf(responseCodeSource);
  if (gateway === undefined) return lookupIsoMatch(code);
  if (gateway === 'checkoutcom') {
    const m = lookupCheckoutCom(code);
    if (!m) return undefined;
    return m.iso ? { source: gateway, code, row: m.row, impliedIso: m.iso } : { source: gateway, code, row: m.row };
  }
  const row = GATEWAY_LOOKUPS[gateway](code);
  return row ? { source: gateway, code, row } : undefined;
}

export function lookupIsoMatch(code: string): TableMatch | undefined {
  if (!looksLikeIsoCode(code)) return undefined;
  const row = lookupIso(code);
  return row ? { source: 'iso8583', code: normaliseIsoCode(code), row } : undefined;
}

const GATEWAY_LOOKUPS: Record<Exclude<GatewaySource, 'checkoutcom'>, (code: string) => Row | undefined> = {
  stripe: lookupStripe,
  braintree: lookupBraintree,
  adyen: lookupAdyen,
  nmi: lookupNmi,
  authorizenet: lookupAuthorizeNet,
};
