// `rescued processor …` in production mode, on both databases: credentials of a gateway's test
// environment (a Stripe sk_test_ key, an Adyen test account) are refused by `add` and by `test`
// (sandbox mode takes them); the unknown-type message offers no sandbox; and
// processor.gatewayUrls without processor.acknowledgeGatewayUrls stops every command at the
// configuration (exit 78), as it stops `serve` (test/e2e/gateway-urls.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { key32 } from '../../helpers/keys.ts';
import { pgliteDirFor } from '../../../src/db/client.ts';
import { runCli } from '../../helpers/cli.ts';
import { startStripeFake, type StripeFake } from '../../fakes/stripe/server.ts';

const TEST_KEY = 'sk_test_integratorsown12345';
const ADYEN_TEST = { apiKey: 'AQE_adyen_test_key_0123456789', merchantAccount: 'AcmeECOM', environment: 'test', returnUrl: 'https://shop.example/return' };

describe.each(DB_KINDS)('rescued processor … in production on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-cli-processor-prod-'));
  const env: NodeJS.ProcessEnv = {
    RESCUED_MODE: 'production', RESCUED_DATA_DIR: dataDir, RESCUED_CONFIG: join(dataDir, 'config.json'),
    RESCUED_AUTH_SIGNING_KEYS: JSON.stringify({ k1: key32() }), RESCUED_AUTH_ACTIVE_SIGNING_KEY_ID: 'k1',
    RESCUED_VAULT_KEYS: JSON.stringify({ v1: key32() }), RESCUED_VAULT_ACTIVE_KEY_ID: 'v1', RESCUED_VAULT_FINGERPRINT_KEY: key32(),
  };
  let db: TestDatabase;
  let stripe: StripeFake;
  let mid: string;
  const run = (args: string[], stdin?: string, over: NodeJS.ProcessEnv = {}) => runCli(args, { ...env, ...over }, db.database, stdin);

  beforeAll(async () => {
    [db, stripe] = await Promise.all([freshDatabase(kind, { pgliteDir: pgliteDirFor(dataDir), poolSize: 1 }), startStripeFake({ key: TEST_KEY })]);
    if (db.url) env.DATABASE_URL = db.url;
    writeFileSync(env.RESCUED_CONFIG!, JSON.stringify({ processor: { gatewayUrls: { stripe: stripe.url }, acknowledgeGatewayUrls: true } }));
    const add = await run(['merchant', 'add', '--name', 'Acme', '--json']);
    expect(add.status, add.stderr).toBe(0);
    mid = (JSON.parse(add.stdout) as { mid: string }).mid;
  });
  afterAll(async () => {
    await Promise.all([db?.dispose(), stripe?.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('add refuses a Stripe test-mode key and an Adyen test account, saying what they are, never the key', async () => {
    const stripeTest = await run(['processor', 'add', mid, '--type', 'stripe', '--label', 'stripe-test'], JSON.stringify({ secretKey: TEST_KEY }));
    expect(stripeTest.status).toBe(1);
    expect(stripeTest.stderr).toBe('rescued: Production mode refuses a Stripe test-mode key (sk_test_…): give the account\'s live credentials (sandbox mode takes test ones).\n');
    const adyenTest = await run(['processor', 'add', mid, '--type', 'adyen', '--label', 'adyen-test'], JSON.stringify(ADYEN_TEST));
    expect(adyenTest.status).toBe(1);
    expect(adyenTest.stderr).toContain('Production mode refuses an Adyen test account ("environment": "test", checkout-test.adyen.com)');
    expect(adyenTest.stderr).not.toContain(ADYEN_TEST.apiKey);
    expect((await run(['processor', 'list', mid])).stdout).toBe('(no processor accounts)\n');
    // The live ones are taken.
    const live = await run(['processor', 'add', mid, '--type', 'stripe', '--label', 'stripe-live'], JSON.stringify({ secretKey: 'sk_live_integratorsown12345' }));
    expect(live.status, live.stderr).toBe(0);
  });

  it('test refuses an account with test-mode credentials added in sandbox mode, before calling the gateway', async () => {
    const added = await run(['processor', 'add', mid, '--type', 'stripe', '--label', 'from-sandbox'], JSON.stringify({ secretKey: TEST_KEY }), { RESCUED_MODE: 'sandbox' });
    expect(added.status, added.stderr).toBe(0);
    const calls = stripe.requests.length;
    const res = await run(['processor', 'test', mid, 'from-sandbox']);
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('rescued: Production mode refuses a Stripe test-mode key (sk_test_…): give the account\'s live credentials (sandbox mode takes test ones).\n');
    expect(stripe.requests.length).toBe(calls);
    // Sandbox mode tests it against the gateway.
    const sandbox = await run(['processor', 'test', mid, 'from-sandbox'], undefined, { RESCUED_MODE: 'sandbox' });
    expect(sandbox.status, sandbox.stderr).toBe(0);
    expect(sandbox.stdout).toContain('from-sandbox: Stripe accepted the key (test mode; balance read)');
  });

  it('the unknown-type message lists the connectors only: production has no sandbox accounts', async () => {
    const res = await run(['processor', 'add', mid, '--type', 'paypal', '--label', 'pp'], '{}');
    expect(res.stderr).toBe('rescued: Unknown processor type "paypal"; types: stripe, adyen, braintree, authorizenet, nmi, http.\n');
    const sandbox = await run(['processor', 'add', mid, '--type', 'paypal', '--label', 'pp'], '{}', { RESCUED_MODE: 'sandbox' });
    expect(sandbox.stderr).toContain('types: sandbox, stripe, adyen');
  });

  it('processor.gatewayUrls without the acknowledgement: every command stops at the configuration (exit 78)', async () => {
    const file = join(dataDir, 'unacknowledged.json');
    writeFileSync(file, JSON.stringify({ processor: { gatewayUrls: { stripe: stripe.url } } }));
    const res = await run(['processor', 'list', mid], undefined, { RESCUED_CONFIG: file });
    expect(res.status).toBe(78);
    expect(res.stderr).toBe(`rescued: configuration error: processor.gatewayUrls: set in production mode for stripe: every charge of those account types, and their secret keys, would go to ${stripe.url} instead of the gateway. Remove it, or set processor.acknowledgeGatewayUrls to true if that is meant\n`);
  });
});
