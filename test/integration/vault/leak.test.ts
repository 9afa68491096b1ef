// Card numbers and CVVs must not escape: run the tokenize flows (good and failing requests,
// each carrying a number and a CVV, and the edge function) with a trace-level logger writing
// to a buffer, then grep that log and a dump of the whole database (every row of every
// table as text, and pg_dump's output on PostgreSQL) for every number and CVV sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import { createLogger } from '../../../src/log.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { maskPan } from '../../../src/vault/pan.ts';
import { openCard } from '../../../src/vault/sealed-card.ts';
import type { MerchantCredentials } from '../../../src/merchants/service.ts';

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];
const CVVS = ['468', '9173'];
/** Luhn-valid numbers that are not test cards (refused in sandbox, but sent all the same). */
const OTHER_PANS = ['4012000033330026', '5105105105105118', '4111111111111112'];
const TEST_PANS = sandboxTestCards().cards.map((c) => c.number);

// A CVV counts as found only as a number of its own (not inside a longer run of digits,
// base64 or a decimal), so ciphertexts and timestamps do not raise false alarms.
const cvvPattern = (cvv: string) => new RegExp(`(?<![A-Za-z0-9+/_.-])${cvv}(?![A-Za-z0-9+/_.-])`);
const spaced = (pan: string) => pan.replace(/(\d{4})(?=\d)/g, '$1 ');

function expectClean(text: string, what: string): void {
  for (const pan of [...TEST_PANS, ...OTHER_PANS]) {
    expect(text.includes(pan), `${what} contains ${maskPan(pan)}`).toBe(false);
    expect(text.includes(spaced(pan)), `${what} contains ${maskPan(pan)} (spaced)`).toBe(false);
  }
  for (const cvv of CVVS) expect(cvvPattern(cvv).test(text), `${what} contains CVV ${cvv}`).toBe(false);
}

describe.each(DB_KINDS)('no card number or CVV in logs or database dumps on %s', (kind) => {
  let t: TestApp;
  let m: MerchantCredentials;
  const lines: string[] = [];
  const url = (c: MerchantCredentials) => `/v1/tokenize?mid=${c.mid}&environment=${encodeURIComponent(c.tokenizationKey)}`;
  const post = (path: string, payload: unknown) => t.app.inject({ method: 'POST', url: path, payload: payload as object });
  const card = (number: string, i: number, extra: Record<string, unknown> = {}) => ({
    payment_method: { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, verification_value: CVVS[i % 2], month: '10', year: '2031', ...extra } },
  });

  beforeAll(async () => {
    const log = createLogger({ level: 'trace', destination: new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }) as never });
    t = await testApp(kind, undefined, { log });
    m = await t.merchants.add({ name: 'Leaky?' });
    const merchantId = (await t.merchants.byMid(m.mid)).id;
    let i = 0;
    for (const pan of TEST_PANS) expect((await post(url(m), card(i % 3 === 0 ? spaced(pan) : pan, i++))).statusCode).toBe(200);
    for (const pan of OTHER_PANS) expect((await post(url(m), card(pan, i++))).statusCode).toBe(422);
    // Failing requests that still carry a whitelisted number and a CVV.
    expect((await post(url(m), card(TEST_PANS[0]!, 0, { month: '13' }))).statusCode).toBe(422);
    expect((await post(url(m), card(TEST_PANS[1]!, 1, { year: '2001' }))).statusCode).toBe(422);
    expect((await post(url(m), card(TEST_PANS[2]!, 0, { verification_value: '12345' }))).statusCode).toBe(422);
    expect((await post(url({ ...m, tokenizationKey: 'rtk_wrong' }), card(TEST_PANS[3]!, 1))).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: url(m), headers: { 'content-type': 'application/json' }, payload: `{"payment_method": {"credit_card": {"number": "${TEST_PANS[4]}", "verification_value": "${CVVS[0]}"` })).statusCode).toBe(400);
    // The edge function, with a full number and a CVV-shaped neighbour field.
    await t.vault.tokenizeAtEdge(merchantId, { cardNumber: TEST_PANS[5]!, token: false, holderName: 'Ada Lovelace', expirationMonth: 1, expirationYear: 2032, cvv: CVVS[1] });
    await t.vault.tokenizeAtEdge(merchantId, { cardNumber: OTHER_PANS[0]!, token: false, holderName: 'Ada Lovelace', expirationMonth: 1, expirationYear: 2032 }).catch(() => undefined);
    t.app.log.trace({ note: `a card ${TEST_PANS[6]} in free text and a field`, cardNumber: TEST_PANS[7], verification_value: CVVS[0] }, 'direct log line');
  });
  afterAll(() => t.close());

  it('the trace-level log of all of it holds no card number and no CVV', () => {
    const log = lines.join('');
    expect(log).toContain('"msg":"card tokenized"');
    expect(log).toContain('"msg":"tokenize refused"');
    expect(log).toContain('"level":"trace"');
    expect(log).toContain(maskPan(TEST_PANS[6]!));
    expectClean(log, 'the log');
  });

  it('a dump of every row of every table holds no card number and no CVV', async () => {
    const db = t.tdb.database.db;
    const tables = rowsOf(await db.execute(sql`select table_schema, table_name from information_schema.tables where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`));
    expect(tables.map((r) => r.table_name)).toContain('cards');
    let dump = '';
    for (const { table_schema, table_name } of tables) {
      const rows = rowsOf(await db.execute(sql.raw(`select t::text as row from "${String(table_schema)}"."${String(table_name)}" t`)));
      dump += rows.map((r) => String(r.row)).join('\n');
    }
    expect(dump).toContain('411111'); // the bins are there, so the dump is real
    expectClean(dump, 'the database dump');
  });

  it('each sealed card holds the number and the holder, never a CVV', async () => {
    const rows = rowsOf(await t.tdb.database.db.execute(sql`select merchant_id, token, sealed from cards`));
    expect(rows.length).toBeGreaterThan(TEST_PANS.length / 2);
    for (const r of rows) {
      const secret = openCard(t.keyRing, String(r.merchant_id), String(r.token), String(r.sealed));
      expect(Object.keys(secret).sort()).toEqual(expect.arrayContaining(['holderName', 'pan']));
      expect(Object.keys(secret).every((k) => ['pan', 'holderName', 'firstName', 'lastName'].includes(k))).toBe(true);
      for (const cvv of CVVS) expect(cvvPattern(cvv).test(JSON.stringify(secret))).toBe(false);
    }
  });

  // Only a server database has a pg_dump; on PGlite the table dump above is the whole database.
  if (kind === 'postgres') it('pg_dump of the database holds no card number and no CVV', () => {
    const res = spawnSync('pg_dump', ['--no-owner', t.tdb.url!], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(res.error, 'pg_dump must be installed (postgresql-client)').toBeUndefined();
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('COPY public.cards');
    expectClean(res.stdout, 'pg_dump');
  });
});
