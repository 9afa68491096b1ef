// An Authorize.Net account: the API Login ID and Transaction Key from the Merchant Interface
// (Account > Settings > Security Settings > General Security Settings > API Credentials & Keys),
// and the environment they belong to: sandbox and production credentials are distinct and
// each works only against its own endpoint (responseCodes.json, E00007: "make sure to post to
// the sandbox URL").
// Lengths from AnetApiSchema.xsd `merchantAuthenticationType`: name ≤ 25, transactionKey ≤ 16.
//
// No raw-card-data flag: unlike Stripe, Authorize.Net takes card numbers in
// createTransactionRequest from any API merchant without an account-level permission (the card
// data is the merchant's PCI scope), so every account may be sent vault cards; customer
// profiles (additionalFields processor.paymentMethod / processor.customer) work as well.
import { Type, type Static } from '@sinclair/typebox';
import type { GatewayKind } from '../connector.ts';

export const AuthorizeNetCredentials = Type.Object(
  {
    apiLoginId: Type.String({ pattern: '^[A-Za-z0-9]{1,25}$', description: 'API Login ID (merchantAuthentication.name)' }),
    transactionKey: Type.String({ pattern: '^[A-Za-z0-9]{16}$', description: 'Transaction Key, 16 characters (merchantAuthentication.transactionKey)' }),
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { description: 'sandbox: apitest.authorize.net; production: api.authorize.net' }),
  },
  { additionalProperties: false },
);
export type AuthorizeNetCredentials = Static<typeof AuthorizeNetCredentials>;

export const AUTHORIZENET_SECRETS = ['transactionKey'] as const;

/** What the router reads before any call; the connector itself is ./index.ts, loaded on the first. */
export const gateway: GatewayKind = {
  credentials: AuthorizeNetCredentials,
  secrets: AUTHORIZENET_SECRETS,
  // no idempotency keys: an unknown outcome is looked up before a new call.
  idempotent: false,
  acceptsCards: () => true,
  testEnvironment: (c) => (c.environment === 'sandbox' ? 'an Authorize.Net sandbox account ("environment": "sandbox", apitest.authorize.net)' : undefined),
};
