// Production mode refuses credentials of a gateway's test environment (each gateway's
// credentials.ts says what makes them so: GatewayKind.testEnvironment); sandbox mode takes them.
// `rescued processor add` and `processor test` both check (test/integration/cli/processor-production.test.ts).
import { describe, expect, it } from 'vitest';
import { checkLiveCredentials } from '../../../src/processors/accounts.ts';
import { RescuedError } from '../../../src/errors.ts';
import type { AccountType } from '../../../src/processors/connector.ts';

const CASES: Array<[AccountType, Record<string, unknown>, Record<string, unknown>, string]> = [
  ['stripe', { secretKey: 'sk_test_abcdefgh12345678' }, { secretKey: 'sk_live_abcdefgh12345678' }, 'a Stripe test-mode key (sk_test_…)'],
  ['stripe', { secretKey: 'rk_test_abcdefgh12345678' }, { secretKey: 'rk_live_abcdefgh12345678' }, 'a Stripe test-mode key (rk_test_…)'],
  ['adyen', { environment: 'test' }, { environment: 'live' }, 'an Adyen test account'],
  ['braintree', { environment: 'sandbox' }, { environment: 'production' }, 'Braintree sandbox keys'],
  ['authorizenet', { environment: 'sandbox' }, { environment: 'production' }, 'an Authorize.Net sandbox account'],
];

const refusal = (type: AccountType, credentials: Record<string, unknown>, mode: 'sandbox' | 'production') => {
  try {
    checkLiveCredentials(type, credentials, mode);
    return undefined;
  } catch (err) {
    return err;
  }
};

describe('test-environment credentials', () => {
  it.each(CASES)('%s: refused in production, named; the live ones and sandbox mode pass', (type, test, live, named) => {
    const err = refusal(type, test, 'production');
    expect(err).toBeInstanceOf(RescuedError);
    expect(err).toMatchObject({ code: 'ERR_PROCESSOR_ACCOUNT_TEST_MODE', message: expect.stringContaining(`Production mode refuses ${named}`) });
    // A key is named by its prefix only.
    if (typeof test.secretKey === 'string') expect((err as Error).message).not.toContain(test.secretKey.slice(8));
    expect(refusal(type, live, 'production')).toBeUndefined();
    expect(refusal(type, test, 'sandbox')).toBeUndefined();
  });

  it('NMI and the bridge have no test environment to tell from their credentials', () => {
    expect(refusal('nmi', { securityKey: 'abcdefgh12345678abcdefgh12345678' }, 'production')).toBeUndefined();
    expect(refusal('http', { url: 'https://bridge.example/x', secret: 'whsec_x' }, 'production')).toBeUndefined();
  });
});
