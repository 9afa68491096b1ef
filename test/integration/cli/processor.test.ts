// `rescued processor …` in-process, on both databases: credentials come from a file or
// standard input (never argv) and are never printed back whole; listings mask secrets;
// `test` proves the credentials against the gateway (a local Stripe here); errors name the
// field, never its value.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { pgliteDirFor } from '../../../src/db/client.ts';
import { runCli } from '../../helpers/cli.ts';
import { startStripeFake, type StripeFake } from '../../fakes/stripe/server.ts';

describe.each(DB_KINDS)('rescued processor … on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-cli-processor-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir, RESCUED_CONFIG: join(dataDir, 'config.json') };
  let db: TestDatabase;
  let stripe: StripeFake;
  let mid: string;
  const run = (args: string[], stdin?: string) => runCli(args, env, db.database, stdin);

  beforeAll(async () => {
    [db, stripe] = await Promise.all([freshDatabase(kind, { pgliteDir: pgliteDirFor(dataDir), poolSize: 1 }), startStripeFake({ key: 'sk_live_clitestclitest9876' })]);
    if (db.url) env.DATABASE_URL = db.url;
    writeFileSync(env.RESCUED_CONFIG!, JSON.stringify({ processor: { gatewayUrls: { stripe: stripe.url } } }));
    const add = await run(['merchant', 'add', '--name', 'Acme', '--json']);
    expect(add.status, add.stderr).toBe(0);
    mid = (JSON.parse(add.stdout) as { mid: string }).mid;
  });
  afterAll(async () => {
    await Promise.all([db?.dispose(), stripe?.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('adds an account from a credentials file, masked in its answer; the first account is the default', async () => {
    const file = join(dataDir, 'stripe.json');
    writeFileSync(file, JSON.stringify({ secretKey: stripe.key, rawCardData: true }));
    const res = await run(['processor', 'add', mid, '--type', 'stripe', '--label', 'stripe-main', '--credentials-file', file]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('added stripe account stripe-main (default)');
    expect(res.stdout).toContain('sk_live_…9876');
    expect(res.stdout + res.stderr).not.toContain(stripe.key);
  });

  it('adds an account from standard input; list masks every secret', async () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const res = await run(['processor', 'add', mid, '--type', 'http', '--label', 'bridge', '--json'], JSON.stringify({ url: 'https://bridge.acme.example/rescued', secret }));
    expect(res.status, res.stderr).toBe(0);
    const list = await run(['processor', 'list', mid, '--json']);
    const views = JSON.parse(list.stdout) as { label: string; type: string; isDefault: boolean; credentials: Record<string, unknown> }[];
    expect(views.map((v) => [v.label, v.type, v.isDefault])).toEqual([['stripe-main', 'stripe', true], ['bridge', 'http', false]]);
    expect(views[1]!.credentials).toEqual({ url: 'https://bridge.acme.example/rescued', secret: expect.stringMatching(/^whsec_…/) });
    const text = await run(['processor', 'list', mid]);
    for (const out of [list.stdout, text.stdout, res.stdout]) {
      expect(out).not.toContain(secret);
      expect(out).not.toContain(stripe.key);
    }
  });

  it('refuses bad credentials naming the field and never the value, an unknown type, and a taken label', async () => {
    const bad = await run(['processor', 'add', mid, '--type', 'stripe', '--label', 'other'], JSON.stringify({ secretKey: 'not-a-key-but-secret-1234' }));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('The stripe credentials are invalid at /secretKey');
    expect(bad.stderr).not.toContain('not-a-key-but-secret-1234');
    const unknown = await run(['processor', 'add', mid, '--type', 'paypal', '--label', 'pp'], '{}');
    expect(unknown.stderr).toContain('Unknown processor type "paypal"');
    const taken = await run(['processor', 'add', mid, '--type', 'stripe', '--label', 'stripe-main'], JSON.stringify({ secretKey: stripe.key }));
    expect(taken.stderr).toContain('already has an account labelled stripe-main');
    const notJson = await run(['processor', 'add', mid, '--type', 'stripe', '--label', 'x'], 'sk_live_pasted_by_hand');
    expect(notJson.stderr).toContain('The credentials are not JSON');
    expect(notJson.stderr).not.toContain('sk_live_pasted_by_hand');
  });

  it('test proves the credentials with a harmless call; wrong ones are refused', async () => {
    const ok = await run(['processor', 'test', mid, 'stripe-main']);
    expect(ok.status, ok.stderr).toBe(0);
    // Where the call went is said with the proof: here a fake, through processor.gatewayUrls.
    expect(ok.stdout).toBe(`stripe-main: Stripe accepted the key (test mode; balance read) (at ${stripe.url}: processor.gatewayUrls.stripe)\n`);
    expect(stripe.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/balance' });
    await run(['processor', 'add', mid, '--type', 'stripe', '--label', 'stale'], JSON.stringify({ secretKey: 'sk_live_revokedrevoked1111' }));
    const refused = await run(['processor', 'test', mid, 'stale']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).not.toContain('sk_live_revokedrevoked1111');
    // One line for a person: the HTTP status, the call and Stripe's own words; no log line, no stack.
    expect(refused.stderr).toBe(`rescued: stale: test call failed: HTTP 401 from GET ${stripe.url}/v1/balance: Stripe refused the account's credentials (HTTP 401): Invalid API Key provided: sk_****\n`);
  });

  it('test of an unreachable gateway: one line saying there was no answer, and from where', async () => {
    const config = JSON.stringify({ processor: { gatewayUrls: { stripe: 'http://127.0.0.1:9' } } });
    const down = join(dataDir, 'down.json');
    writeFileSync(down, config);
    const res = await runCli(['processor', 'test', mid, 'stripe-main'], { ...env, RESCUED_CONFIG: down }, db.database);
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('rescued: stripe-main: test call failed: no answer from GET http://127.0.0.1:9/v1/balance: Stripe could not be reached (ECONNREFUSED)\n');
  });

  it('removes an account; removing it again is a clear error', async () => {
    expect((await run(['processor', 'remove', mid, 'stale'])).stdout).toContain('removed account stale');
    const again = await run(['processor', 'remove', mid, 'stale']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('The merchant has no account labelled stale.');
    expect((await run(['processor', 'list', mid, '--json'])).stdout).not.toContain('"stale"');
  });
});
