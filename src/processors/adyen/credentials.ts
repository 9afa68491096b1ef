// An Adyen account: the API key of a web service user with the Checkout webservice role, the
// merchant account it charges through, and the environment. A live account also needs its
// live endpoint prefix: Adyen's live Checkout URL is
// https://<prefix>-checkout-live.adyenpayments.com/checkout/v72 (@adyen/api-library
// lib/src/service.js createBaseUrl; Customer Area > Developers > API URLs).
// `rawCardData`: Adyen takes card numbers in `paymentMethod.number` only from fully PCI-DSS
// compliant merchants whose account Adyen has enabled for it (CheckoutService-v72.json,
// CardDetails.number: "Only collect raw card data if you are fully PCI compliant"); without
// the flag only Adyen tokens (additionalFields processor.paymentMethod, with
// processor.customer as the shopperReference) can be charged.
// `returnUrl`: required on every POST /payments by the API (CheckoutService-v72.json,
// PaymentRequest.required). rescued never redirects a shopper itself (an authentication
// Adyen asks for comes back as a challenge), so this is the merchant's own checkout page.
import { Type, type Static } from '@sinclair/typebox';
import type { GatewayKind } from '../connector.ts';

export const AdyenCredentials = Type.Object(
  {
    apiKey: Type.String({ minLength: 16, pattern: '^\\S+$', description: 'API key of the web service user (Customer Area > Developers > API credentials)' }),
    merchantAccount: Type.String({ minLength: 1, maxLength: 80, pattern: '^\\S+$', description: 'the merchant account charges are made on' }),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: checkout-test.adyen.com; live: needs liveEndpointUrlPrefix' }),
    liveEndpointUrlPrefix: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9-]*$', description: 'live only: the prefix of the account\'s live endpoints, e.g. 1797a841fbb37ca7-AdyenDemo' })),
    returnUrl: Type.String({ pattern: '^https://\\S+$', maxLength: 1024, description: 'the merchant\'s checkout page, sent as returnUrl (required by POST /payments)' }),
    rawCardData: Type.Optional(Type.Boolean({ description: 'Adyen has enabled raw card data (PCI DSS) for the account: vault cards may be charged' })),
  },
  { additionalProperties: false },
);
export type AdyenCredentials = Static<typeof AdyenCredentials>;

export const ADYEN_SECRETS = ['apiKey'] as const;

/** What the router reads before any call; the connector itself is ./index.ts, loaded on the first. */
export const gateway: GatewayKind = {
  credentials: AdyenCredentials,
  secrets: ADYEN_SECRETS,
  // idempotency keys: a repeated key is answered with its first answer.
  idempotent: true,
  acceptsCards: (c) => c.rawCardData === true,
  testEnvironment: (c) => (c.environment === 'test' ? 'an Adyen test account ("environment": "test", checkout-test.adyen.com)' : undefined),
};
