// A Stripe account: its secret (or restricted) API key. `rawCardData` says whether the account
// may receive card numbers (Stripe grants raw card data access on request); without it only
// Stripe-stored payment methods (additionalFields processor.paymentMethod) can be charged.
import { Type, type Static } from '@sinclair/typebox';
import type { GatewayKind } from '../connector.ts';

export const StripeCredentials = Type.Object(
  {
    secretKey: Type.String({ pattern: '^(sk|rk)_(live|test)_[A-Za-z0-9]{8,}$', description: 'secret or restricted key (sk_live_…, rk_live_…)' }),
    rawCardData: Type.Optional(Type.Boolean({ description: 'the account has raw card data access: vault cards may be charged' })),
  },
  { additionalProperties: false },
);
export type StripeCredentials = Static<typeof StripeCredentials>;

export const STRIPE_SECRETS = ['secretKey'] as const;

/** What the router reads before any call; the connector itself is ./index.ts, loaded on the first. */
export const gateway: GatewayKind = {
  credentials: StripeCredentials,
  secrets: STRIPE_SECRETS,
  // idempotency keys: a repeated key is answered with its first answer.
  idempotent: true,
  acceptsCards: (c) => c.rawCardData === true,
  // Stripe's test-mode keys: sk_test_… (secret) and rk_test_… (restricted), docs.stripe.com/keys.
  testEnvironment: (c) => (/^(sk|rk)_test_/.test(String(c.secretKey)) ? `a Stripe test-mode key (${String(c.secretKey).slice(0, 8)}…)` : undefined),
};
