// A Braintree gateway: its merchant ID and one API key pair (Control Panel → Settings → API),
// and which of Braintree's two environments the keys belong to (the SDK's
// `Environment.Sandbox` / `Environment.Production`, lib/braintree/environment.js).
//
// A Braintree merchant account settles in one currency: a sale is charged in the currency of
// the merchant account it names (`merchantAccountId`), or of the gateway's default account
// (https://developer.paypal.com/braintree/docs/reference/request/transaction/sale/node,
// `merchantAccountId`). `merchantAccounts` lists the account of each currency; when it is set,
// a charge in a currency it does not list is refused before it is sent, so that a USD amount is
// never charged as EUR. Without it every charge goes to `merchantAccountId` (or the default
// account), whatever its currency: the merchant vouches that they match.
//
// `rawCardData`: Braintree takes card numbers in a server-side sale (`creditCard[number]`),
// but documents raw card data on the merchant's servers as "typically requires PCI SAQ D
// compliance" (https://developer.paypal.com/braintree/docs/reference/request/credit-card/create/node).
// It is not an account switch at Braintree, so the merchant states it here: without it only
// Braintree Vault payment methods (additionalFields processor.paymentMethod) are charged.
import { Type, type Static } from '@sinclair/typebox';
import type { GatewayKind } from '../connector.ts';

// Braintree ids are letters, digits, `_` and `-` (the SDK refuses anything else in a path:
// lib/braintree/util.js, isInvalidPathSegment).
const ID = '^[A-Za-z0-9_-]{1,64}$';

export const BraintreeCredentials = Type.Object(
  {
    merchantId: Type.String({ pattern: ID, description: 'the gateway\'s merchant ID (Control Panel → Settings → Business)' }),
    publicKey: Type.String({ pattern: ID, description: 'the API key\'s public key' }),
    privateKey: Type.String({ pattern: '^[A-Za-z0-9]{8,128}$', description: 'the API key\'s private key' }),
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { description: 'sandbox (api.sandbox.braintreegateway.com) or production (api.braintreegateway.com)' }),
    merchantAccountId: Type.Optional(Type.String({ pattern: ID, description: 'the merchant account charged when merchantAccounts is absent; the gateway\'s default account when both are absent' })),
    merchantAccounts: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.String({ pattern: ID }), { description: 'ISO 4217 currency → the merchant account that settles it; other currencies are refused', minProperties: 1, additionalProperties: false })),
    rawCardData: Type.Optional(Type.Boolean({ description: 'the merchant is PCI DSS SAQ D compliant for Braintree: vault cards may be charged' })),
  },
  { additionalProperties: false },
);
export type BraintreeCredentials = Static<typeof BraintreeCredentials>;

export const BRAINTREE_SECRETS = ['privateKey'] as const;

/** What the router reads before any call; the connector itself is ./index.ts, loaded on the first. */
export const gateway: GatewayKind = {
  credentials: BraintreeCredentials,
  secrets: BRAINTREE_SECRETS,
  // no idempotency keys: an unknown outcome is looked up before a new call.
  idempotent: false,
  acceptsCards: (c) => c.rawCardData === true,
  testEnvironment: (c) => (c.environment === 'sandbox' ? 'Braintree sandbox keys ("environment": "sandbox")' : undefined),
};
