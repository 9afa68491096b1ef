// A payer's cards in the vault, on each database: POST /v1/tokenize with payer.id stores the
// card as one of the payer's (a bad payer id is a field error and stores nothing), and the
// cascade's list of eligible cards: the cards the order lists first, in their order, then the
// payer's, most recently tokenized first; never an excluded or expired card, never another
// merchant's or another payer's. And the merchant's opt-in, set by `rescued merchant set`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { runCli } from '../../helpers/cli.ts';
import { pgliteDirFor } from '../../../src/db/client.ts';
import type { MerchantCredentials } from '../../../src/merchants/service.ts';
import { eligiblePayerCards, payerIdOf } from '../../../src/vault/payer-cards.ts';

const NOW = new Date('2026-06-15T12:00:00Z');
const body = (number: string, payer?: unknown, month = '09', year = '2030') => ({
  payment_method: { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, month, year } },
  ...(payer === undefined ? {} : { payer }),
});
const url = (c: Pick<MerchantCredentials, 'mid' | 'tokenizationKey'>) => `/v1/tokenize?mid=${c.mid}&environment=${encodeURIComponent(c.tokenizationKey)}`;

describe('payer ids', () => {
  it('trims, and reads empty or NA as no payer', () => {
    expect(payerIdOf(' cus_1 ')).toBe('cus_1');
    expect(payerIdOf('NA')).toBeUndefined();
    expect(payerIdOf('')).toBeUndefined();
    expect(payerIdOf(42)).toBeUndefined();
  });
});

describe.each(DB_KINDS)("a payer's cards on %s", (kind) => {
  let t: TestApp;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  let aId: string;
  const tokens: Record<string, string> = {};
  const tokenize = async (who: MerchantCredentials, number: string, payer?: unknown, month?: string, year?: string) => {
    const res = await t.app.inject({ method: 'POST', url: url(who), payload: body(number, payer, month, year) });
    return { status: res.statusCode, json: res.json() as { transaction?: { payment_method: { token: string } }; errors: { field: string; code: string }[] } };
  };
  const eligible = (q: Partial<Parameters<typeof eligiblePayerCards>[1]> = {}) =>
    eligiblePayerCards(t.tdb.database.db, { merchantId: aId, payerId: 'cus_1', now: NOW, ...q }).then((cards) => cards.map((c) => c.token));

  beforeAll(async () => {
    t = await testApp(kind);
    a = await t.merchants.add({ name: 'Merchant A' });
    b = await t.merchants.add({ name: 'Merchant B' });
    aId = (await t.merchants.byMid(a.mid)).id;
    // Tokenized in this order for cus_1 at A: visa, then mastercard, then amex; discover for cus_2;
    // an unlinked card; and one at merchant B for the same payer id.
    for (const [name, number, payer] of [['visa', '4111111111111111', 'cus_1'], ['mc', '5555555555554444', 'cus_1'], ['amex', '378282246310005', { id: 'cus_1' }], ['discover', '6011111111111117', 'cus_2'], ['plain', '4242424242424242', undefined]] as const) {
      const r = await tokenize(a, number, typeof payer === 'string' ? { id: payer } : payer);
      expect(r.status).toBe(200);
      tokens[name] = r.json.transaction!.payment_method.token;
    }
    const other = await tokenize(b, '4000056655665556', { id: 'cus_1' });
    tokens.atB = other.json.transaction!.payment_method.token;
  });
  afterAll(() => t.close());

  it("lists the payer's cards at the merchant, most recently tokenized first", async () => {
    expect(await eligible()).toEqual([tokens.amex, tokens.mc, tokens.visa]);
    expect(await eligible({ payerId: 'cus_2' })).toEqual([tokens.discover]);
    expect(await eligible({ payerId: 'nobody' })).toEqual([]);
    expect(await eligible({ payerId: undefined })).toEqual([]);
  });

  it('leaves out the excluded cards (the order\'s own and those it ended on)', async () => {
    expect(await eligible({ exclude: [tokens.amex!, tokens.visa!] })).toEqual([tokens.mc]);
  });

  it('a card tokenized again for the payer moves to the front; for another payer it leaves this one', async () => {
    expect((await tokenize(a, '4111111111111111', { id: 'cus_1' })).status).toBe(200);
    expect(await eligible()).toEqual([tokens.visa, tokens.amex, tokens.mc]);
    expect((await tokenize(a, '5555555555554444', { id: 'cus_2' })).status).toBe(200);
    expect(await eligible()).toEqual([tokens.visa, tokens.amex]);
    expect(await eligible({ payerId: 'cus_2' })).toEqual([tokens.mc, tokens.discover]);
  });

  it('the cards the order lists come first, in its order; another merchant\'s token is never returned', async () => {
    expect(await eligible({ listed: [tokens.plain!, tokens.atB!, tokens.amex!] })).toEqual([tokens.plain, tokens.amex, tokens.visa]);
    expect(await eligible({ payerId: undefined, listed: [tokens.atB!, 'tok_' + 'x'.repeat(32)] })).toEqual([]);
  });

  it('an expired card is not eligible', async () => {
    expect((await tokenize(a, '2223003122003222', { id: 'cus_3' }, '12', '2026')).status).toBe(200);
    expect(await eligible({ payerId: 'cus_3', now: new Date('2026-12-31T23:00:00Z') })).toHaveLength(1);
    expect(await eligible({ payerId: 'cus_3', now: new Date('2027-01-01T00:00:00Z') })).toEqual([]);
  });

  it('a payer id that is not a string of 1–128 characters is a field error, and nothing is stored', async () => {
    for (const payer of [{ id: '' }, { id: 'x'.repeat(129) }, { id: 7 }]) {
      const r = await tokenize(a, '4000008260000000', payer);
      expect(r.status).toBe(422);
      expect(r.json.errors.map((e) => e.field)).toEqual(['payer.id']);
    }
    expect(await eligible({ payerId: 'x'.repeat(129) })).toEqual([]);
    // The card itself was never stored: tokenizing it without a payer makes it new.
    const plain = await tokenize(a, '4000008260000000');
    expect(plain.status).toBe(200);
  });
});

describe.each(DB_KINDS)('rescued merchant set --cascade-other-cards on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-cli-settings-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir, RESCUED_CONFIG: join(dataDir, 'config.json') };
  writeFileSync(env.RESCUED_CONFIG!, '{}');
  let db: TestDatabase;
  let mid: string;
  const run = (args: string[]) => runCli(args, env, db.database);

  beforeAll(async () => {
    db = await freshDatabase(kind, { pgliteDir: pgliteDirFor(dataDir), poolSize: 1 });
    if (db.url) env.DATABASE_URL = db.url;
    const add = await run(['merchant', 'add', '--name', 'Acme', '--json']);
    expect(add.status, add.stderr).toBe(0);
    mid = (JSON.parse(add.stdout) as { mid: string }).mid;
  });
  afterAll(async () => {
    await db?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const settings = async () => (JSON.parse((await run(['merchant', 'show', mid])).stdout) as { settings: { cascadeOtherCards: boolean } }).settings;

  it('is off by default, turned on and off, shown by merchant show', async () => {
    expect(await settings()).toEqual({ cascadeOtherCards: false });
    const on = await run(['merchant', 'set', mid, '--cascade-other-cards', 'on']);
    expect(on.status, on.stderr).toBe(0);
    expect(on.stdout).toContain("cascade to the payer's other cards: on");
    expect(await settings()).toEqual({ cascadeOtherCards: true });
    const off = await run(['merchant', 'set', mid, '--cascade-other-cards', 'off', '--json']);
    expect(JSON.parse(off.stdout)).toEqual({ cascadeOtherCards: false });
    expect(await settings()).toEqual({ cascadeOtherCards: false });
  });

  it('refuses a value that is not on or off, and an unknown merchant, changing nothing', async () => {
    const bad = await run(['merchant', 'set', mid, '--cascade-other-cards', 'maybe']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--cascade-other-cards takes on or off');
    const unknown = await run(['merchant', 'set', '00000000-0000-4000-8000-000000000000', '--cascade-other-cards', 'on']);
    expect(unknown.status).not.toBe(0);
    expect(await settings()).toEqual({ cascadeOtherCards: false });
  });
});
