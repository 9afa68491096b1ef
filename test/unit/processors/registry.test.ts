// The connectors are loaded on first call (src/processors/registry.ts): what the router reads
// before calling must be what each connector says of itself, and the first call must reach
// the real connector.
import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { ACCOUNT_KINDS, lazyConnector } from '../../../src/processors/registry.ts';
import type { AccountType, Connector, ConnectorOptions } from '../../../src/processors/connector.ts';
import { createStripeConnector } from '../../../src/processors/stripe/index.ts';
import { createAdyenConnector } from '../../../src/processors/adyen/index.ts';
import { createBraintreeConnector } from '../../../src/processors/braintree/index.ts';
import { createAuthorizeNetConnector } from '../../../src/processors/authorizenet/index.ts';
import { createNmiConnector } from '../../../src/processors/nmi/index.ts';
import { createHttpBridgeConnector } from '../../../src/processors/http/index.ts';

const REAL: Record<string, (credentials: never, opts: ConnectorOptions) => Connector> = {
  stripe: createStripeConnector as never,
  adyen: createAdyenConnector as never,
  braintree: createBraintreeConnector as never,
  authorizenet: createAuthorizeNetConnector as never,
  nmi: createNmiConnector as never,
  http: createHttpBridgeConnector as never,
};

const opts: ConnectorOptions = { timeoutMs: 1000, baseUrl: 'https://127.0.0.1:9' };

// Valid credentials of each type (nothing is called: connectors reach the network only on a call).
const CREDENTIALS: Record<string, object> = {
  stripe: { secretKey: 'sk_test_abcdefgh12345678' },
  adyen: { apiKey: 'AQE_test_api_key_0123456789', merchantAccount: 'TestMerchant', environment: 'test', returnUrl: 'https://shop.example/return' },
  braintree: { merchantId: 'merchant123', publicKey: 'public123', privateKey: 'private123456', environment: 'sandbox', merchantAccounts: { USD: 'usd_account' } },
  authorizenet: { apiLoginId: 'login123', transactionKey: 'ABCDEFGH12345678', environment: 'sandbox' },
  nmi: { securityKey: 'abcdefgh12345678abcdefgh12345678' },
  http: { url: 'https://bridge.example/charge', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
};

describe('lazily loaded connectors', () => {
  const types = Object.entries(ACCOUNT_KINDS).filter(([, kind]) => kind.create) as Array<[AccountType, Required<NonNullable<(typeof ACCOUNT_KINDS)[AccountType]>>]>;

  it('cover every connector type', () => {
    expect(types.map(([type]) => type).sort()).toEqual(Object.keys(REAL).sort());
  });

  for (const rawCardData of [false, true]) {
    it(`state the type, idempotency and card acceptance each connector states (rawCardData ${rawCardData})`, () => {
      for (const [type, kind] of types) {
        // rawCardData exists only where the gateway has such a switch (Stripe, Adyen, Braintree).
        const hasSwitch = 'rawCardData' in (kind.credentials as unknown as { properties: object }).properties;
        const credentials = { ...CREDENTIALS[type], ...(hasSwitch ? { rawCardData } : {}) } as never;
        expect(Value.Errors(kind.credentials, credentials).First()?.message, type).toBeUndefined();
        const lazy = kind.create(credentials, opts);
        const real = REAL[type]!(credentials, opts);
        expect({ type: lazy.type, idempotent: lazy.idempotent, acceptsCards: lazy.acceptsCards }, type).toEqual({ type: real.type, idempotent: real.idempotent, acceptsCards: real.acceptsCards });
      }
    });
  }

  it('loads the module once, on the first call, and hands every call to the real connector', async () => {
    let loads = 0;
    const calls: string[] = [];
    const fake: Connector = {
      type: 'nmi', idempotent: false, acceptsCards: true,
      authorize: async () => (calls.push('authorize'), { status: 'approved' } as never),
      refund: async () => (calls.push('refund'), { status: 'approved' } as never),
      void: async () => (calls.push('void'), { status: 'approved' } as never),
      lookup: async () => (calls.push('lookup'), null),
      test: async () => (calls.push('test'), 'ok'),
    };
    const create = lazyConnector('nmi', { idempotent: false, acceptsCards: () => true }, async () => {
      loads++;
      return () => fake;
    });
    const connector = create({} as never, opts);
    expect(loads).toBe(0);
    await Promise.all([connector.test(), connector.lookup({ idempotencyKey: 'k', reference: 'r' })]);
    await connector.authorize({} as never);
    await connector.refund({} as never);
    await connector.void({} as never);
    expect(loads).toBe(1);
    expect(calls.sort()).toEqual(['authorize', 'lookup', 'refund', 'test', 'void']);
  });
});
