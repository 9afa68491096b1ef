// An HTTP bridge account: the merchant's own endpoint that charges through any other gateway
// (docs/gateways/http.md). Calls are signed like our webhooks: Standard Webhooks, HMAC-SHA256
// keyed with the decoded bytes of a `whsec_…` secret, which the Standard Webhooks spec
// (github.com/standard-webhooks/standard-webhooks, spec/standard-webhooks.md, "Signature
// scheme") wants random, at least 24 bytes and at most 64, serialized as base64 behind
// `whsec_`: 32 to 88 base64 characters.
import { Type, type Static } from '@sinclair/typebox';
import type { GatewayKind } from '../connector.ts';

export const HttpBridgeCredentials = Type.Object(
  {
    // No user:password@ in the URL: fetch refuses such a URL, and a password there would
    // escape the masking of `secret` in listings.
    url: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://[^/?#@\\s]+([/?#]\\S*)?$', description: 'the bridge endpoint (https; http only in sandbox mode), without user:password@' }),
    secret: Type.String({ pattern: '^whsec_[A-Za-z0-9+/]{32,86}={0,2}$', description: 'signing secret, whsec_ + base64 of 24 to 64 random bytes' }),
  },
  { additionalProperties: false },
);
export type HttpBridgeCredentials = Static<typeof HttpBridgeCredentials>;

export const HTTP_BRIDGE_SECRETS = ['secret'] as const;

/** What the router reads before any call; the connector itself is ./index.ts, loaded on the first. */
export const gateway: GatewayKind = {
  credentials: HttpBridgeCredentials,
  secrets: HTTP_BRIDGE_SECRETS,
  // the bridge dedupes on the idempotency key (docs/gateways/http.md).
  idempotent: true,
  acceptsCards: () => true,
};
