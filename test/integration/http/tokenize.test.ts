// POST /v1/tokenize over HTTP (inject), on each database: the spec's shapes, the query-key
// authentication, one 422 entry per invalid field, and the sandbox whitelist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../../helpers/db.ts';
import { testApp, type TestApp } from '../../helpers/app.ts';
import type { MerchantCredentials } from '../../../src/merchants/service.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';

type Card = Record<string, unknown>;
const creditCard = (extra: Card = {}): Card => ({ first_name: 'Ada', last_name: 'Lovelace', number: '4111111111111111', verification_value: '123', month: '09', year: '2030', ...extra });
const body = (extra: Card = {}) => ({ payment_method: { sense_key: 'sk_1', credit_card: creditCard(extra) } });
const url = (c: Pick<MerchantCredentials, 'mid' | 'tokenizationKey'>, path = '/v1/tokenize') => `${path}?mid=${c.mid}&environment=${encodeURIComponent(c.tokenizationKey)}`;

describe.each(DB_KINDS)('POST /v1/tokenize on %s', (kind) => {
  let t: TestApp;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  const post = (path: string, payload: unknown) => t.app.inject({ method: 'POST', url: path, payload: payload as object });

  beforeAll(async () => {
    t = await testApp(kind);
    a = await t.merchants.add({ name: 'Merchant A' });
    b = await t.merchants.add({ name: 'Merchant B' });
  });
  afterAll(() => t.close());

  it('answers the spec\'s response, and the token resolves to the card inside the vault', async () => {
    const res = await post(url(a), body());
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const json = res.json();
    expect(json).toEqual({
      transaction: {
        payment_method: {
          token: expect.stringMatching(/^tok_[A-Za-z0-9_-]{32}$/),
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          email: null,
          data: null,
          storage_state: 'retained',
          test: true,
          metadata: null,
          last_four_digits: '1111',
          first_six_digits: '411111',
          month: 9,
          year: 2030,
        },
      },
      success: true,
      errors: [],
      result: null,
      status: null,
      statusCode: null,
      customProperties: {},
    });
    expect(res.body).not.toContain('4111111111111111');
    const merchantId = (await t.merchants.byMid(a.mid)).id;
    const token = json.transaction.payment_method.token as string;
    expect(await t.vault.reveal(merchantId, token)).toMatchObject({ pan: '4111111111111111', holderName: 'Ada Lovelace' });
    // The same card again: the same token (the merchant may tokenize at every checkout).
    const again = await post(url(a, '/tokenize'), body({ number: '4111 1111 1111 1111' }));
    expect(again.json().transaction.payment_method.token).toBe(token);
    const doubled = await post(url(a, '//v1//tokenize'), body());
    expect(doubled.json().transaction.payment_method.token).toBe(token);
  });

  it('accepts a card without CVV', async () => {
    const { verification_value: _cvv, ...noCvv } = creditCard({ number: '5555555555554444' });
    expect((await post(url(a), { payment_method: { credit_card: noCvv } })).statusCode).toBe(200);
    expect((await post(url(a), body({ number: '5555555555554444', verification_value: '' }))).statusCode).toBe(200);
  });

  it('answers 401 with an error entry for an unknown mid or a wrong key', async () => {
    const unknownMid = { mid: '00000000-0000-4000-8000-000000000000', tokenizationKey: a.tokenizationKey };
    for (const path of [url(unknownMid), url({ mid: a.mid, tokenizationKey: 'rtk_wrong' }), url({ mid: a.mid, tokenizationKey: b.tokenizationKey }), `/v1/tokenize?mid=${a.mid}`, '/v1/tokenize', url({ mid: 'not-a-guid', tokenizationKey: a.tokenizationKey })]) {
      const res = await post(path, body());
      expect(res.statusCode, path).toBe(401);
      expect(res.json()).toMatchObject({ success: false, result: 'Failed', status: null, statusCode: 'ERR_VAULT_INVALID_TOKENIZATION_KEY', errors: [{ field: 'environment', code: 'ERR_VAULT_INVALID_TOKENIZATION_KEY' }] });
    }
  });

  it('answers 401 for a disabled merchant', async () => {
    const c = await t.merchants.add({ name: 'Soon disabled' });
    expect((await post(url(c), body())).statusCode).toBe(200);
    await t.merchants.disable(c.mid);
    expect((await post(url(c), body())).statusCode).toBe(401);
  });

  it('answers 422 with one entry per invalid field', async () => {
    const res = await post(url(a), body({ month: '13', year: '30', first_name: '', last_name: undefined, verification_value: '12' }));
    expect(res.statusCode).toBe(422);
    const json = res.json();
    expect(json).toMatchObject({ success: false, result: 'Failed', status: null, statusCode: 'ERR_VAULT_CARD_INVALID' });
    const fields = json.errors.map((e: { field: string; code: string }) => [e.field, e.code]);
    expect(fields.sort()).toEqual([
      ['payment_method.credit_card.first_name', 'ERR_MODEL_REQUIRED'],
      ['payment_method.credit_card.last_name', 'ERR_MODEL_REQUIRED'],
      ['payment_method.credit_card.month', 'ERR_MODEL_FORMAT'],
      ['payment_method.credit_card.verification_value', 'ERR_MODEL_FORMAT'],
      ['payment_method.credit_card.year', 'ERR_MODEL_FORMAT'],
    ]);
    expect(new Set(fields.map((f: string[]) => f[0])).size).toBe(fields.length);
  });

  it('answers 422 for an expired card and for a body without a card', async () => {
    const expired = await post(url(a), body({ month: '01', year: '2020' }));
    expect(expired.statusCode).toBe(422);
    expect(expired.json().errors).toEqual([expect.objectContaining({ field: 'payment_method.credit_card.year', code: 'ERR_VAULT_CARD_EXPIRED' })]);
    const empty = await post(url(a), {});
    expect(empty.statusCode).toBe(422);
    expect(empty.json().errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['payment_method', 'payment_method.credit_card.number']));
  });

  it('refuses in sandbox a card that is not whitelisted, Luhn-valid or not', async () => {
    for (const number of ['4012000033330026', '4111111111111112']) {
      const res = await post(url(a), body({ number }));
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ statusCode: 'ERR_VAULT_NOT_TEST_CARD', errors: [{ field: 'payment_method.credit_card.number', code: 'ERR_VAULT_NOT_TEST_CARD' }] });
      expect(res.body).not.toContain(number);
    }
  });

  it('names the required payer email of the email-bound test card, and null for the others', async () => {
    const emailCard = sandboxTestCards().cards.find((c) => c.requiresPayerEmail)!;
    const res = await post(url(a), body({ number: emailCard.number }));
    expect(res.json().transaction.payment_method.email).toBe(emailCard.requiresPayerEmail);
    for (const c of sandboxTestCards().cards.filter((x) => !x.requiresPayerEmail)) {
      const r = await post(url(b), body({ number: c.number }));
      expect(r.statusCode, c.number.slice(-4)).toBe(200);
      expect(r.json().transaction.payment_method).toMatchObject({ email: null, first_six_digits: c.number.slice(0, 6), last_four_digits: c.number.slice(-4) });
    }
  });
});

describe.each(DB_KINDS)('POST /v1/tokenize in production mode on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp(kind, undefined, { mode: 'production' });
  });
  afterAll(() => t.close());

  it('accepts any valid card, with test false', async () => {
    const a = await t.merchants.add({ name: 'Live' });
    const res = await t.app.inject({ method: 'POST', url: url(a), payload: body({ number: '4012000033330026' }) });
    expect(res.statusCode).toBe(200);
    expect(res.json().transaction.payment_method).toMatchObject({ test: false, first_six_digits: '401200', last_four_digits: '0026' });
    const bad = await t.app.inject({ method: 'POST', url: url(a), payload: body({ number: '4012000033330027' }) });
    expect(bad.json()).toMatchObject({ statusCode: 'ERR_VAULT_CARD_INVALID', errors: [{ field: 'payment_method.credit_card.number', code: 'ERR_MODEL_FORMAT' }] });
  });
});
