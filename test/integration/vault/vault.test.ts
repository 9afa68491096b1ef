// The vault through its service, on each database: tokenize, duplicates, reveal, the edge
// function evaluate and batch intake will call, and the sandbox whitelist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { key32 } from '../../helpers/keys.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { createVault, type Vault } from '../../../src/vault/service.ts';
import { checkSandboxPayerEmail, sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { RescuedError } from '../../../src/errors.ts';

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];
const NOW = () => new Date('2026-06-15T12:00:00Z');
const card = (number: string, extra: Record<string, unknown> = {}) => ({ number, month: '09', year: '2029', cvv: '123', firstName: 'Ada', lastName: 'Lovelace', ...extra });
const pm = (cardNumber: string, extra: Record<string, unknown> = {}) => ({
  holderName: 'Ada Lovelace', cardType: 'Credit', cardBrand: 'VISA', cardCountry: 'US', expirationMonth: 9, expirationYear: 2029,
  cardBinNumber: '000000', cardLast4Digits: '0000', cardNumber, ...extra,
});

async function rejection(p: Promise<unknown>): Promise<RescuedError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(RescuedError);
  return err as RescuedError;
}

describe.each(DB_KINDS)('card vault on %s', (kind) => {
  let t: TestDatabase;
  let sandbox: Vault;
  let production: Vault;
  let m1: string;
  let m2: string;

  beforeAll(async () => {
    t = await freshDatabase(kind);
    const db = t.database.db;
    const ring = keyRingFrom({ k1: key32() }, 'k1');
    const merchants = createMerchantService({ db, vault: ring, mode: 'sandbox' });
    const ids = async (name: string) => (await merchants.byMid((await merchants.add({ name })).mid)).id;
    [m1, m2] = [await ids('One'), await ids('Two')];
    const fingerprintKey = key32();
    sandbox = createVault({ db, ring, fingerprintKey, mode: 'sandbox', testCards: sandboxTestCards(), now: NOW });
    production = createVault({ db, ring, fingerprintKey, mode: 'production', now: NOW });
  });
  afterAll(() => t.dispose());

  it('tokenizes a test card and reveals it only for its merchant', async () => {
    const r = await sandbox.tokenize(m1, card('4111 1111 1111 1111'));
    expect(r).toMatchObject({ created: true, masked: '411111******1111', card: { bin: '411111', last4: '1111', month: 9, year: 2029, brand: 'VISA', test: true } });
    expect(r.card.token).toMatch(/^tok_[A-Za-z0-9_-]{32}$/);
    expect(r.testCard?.processor).toEqual({ outcome: 'approve' });
    expect(await sandbox.reveal(m1, r.card.token)).toMatchObject({ pan: '4111111111111111', holderName: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace' });
    expect(await sandbox.reveal(m2, r.card.token)).toBeUndefined();
    expect(await sandbox.find(m2, r.card.token)).toBeUndefined();
  });

  it('returns the existing token for the same card at the same merchant, a new one at another', async () => {
    const a = await sandbox.tokenize(m1, card('5555555555554444'));
    const again = await sandbox.tokenize(m1, card('5555-5555-5555-4444'));
    expect(again).toMatchObject({ created: false, card: { token: a.card.token, updatedAt: a.card.updatedAt } });
    const other = await sandbox.tokenize(m2, card('5555555555554444'));
    expect(other.created).toBe(true);
    expect(other.card.token).not.toBe(a.card.token);
  });

  it('refreshes expiry and holder name of a card tokenized again, keeping its token', async () => {
    const a = await sandbox.tokenize(m1, card('378282246310005'));
    const b = await sandbox.tokenize(m1, card('378282246310005', { month: '11', year: '2031', firstName: 'Grace', lastName: 'Hopper' }));
    expect(b).toMatchObject({ created: false, card: { token: a.card.token, month: 11, year: 2031, createdAt: a.card.createdAt } });
    expect(b.card.updatedAt.getTime()).toBeGreaterThanOrEqual(a.card.updatedAt.getTime());
    expect(await sandbox.reveal(m1, a.card.token)).toMatchObject({ holderName: 'Grace Hopper', month: 11, year: 2031 });
  });

  it('makes one row when the same card is tokenized concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => sandbox.tokenize(m1, card('6011111111111117'))));
    expect(new Set(results.map((r) => r.card.token)).size).toBe(1);
    const [row] = rowsOf(await t.database.db.execute(sql`select count(*)::int as n from cards where bin = '601111'`));
    expect(row!.n).toBe(1);
  });

  it('refuses in sandbox any number that is not a test card, Luhn-valid or not', async () => {
    for (const number of ['4012000033330026', '4111111111111112', '1234']) {
      const err = await rejection(sandbox.tokenize(m1, card(number)));
      expect(err.code).toBe('ERR_VAULT_NOT_TEST_CARD');
      expect(err.status).toBe(422);
      expect(err.errors).toEqual([expect.objectContaining({ field: 'payment_method.credit_card.number', code: 'ERR_VAULT_NOT_TEST_CARD' })]);
      expect(JSON.stringify(err.errors) + err.message).not.toContain(number);
    }
  });

  it('accepts any valid card in production, with test false', async () => {
    const r = await production.tokenize(m1, card('4012000033330026'));
    expect(r).toMatchObject({ created: true, testCard: undefined, card: { test: false, brand: 'VISA' } });
    const err = await rejection(production.tokenize(m1, card('4111111111111112', { month: '13' })));
    expect(err.code).toBe('ERR_VAULT_CARD_INVALID');
    expect(err.errors.map((e) => [e.field, e.code])).toEqual([['payment_method.credit_card.number', 'ERR_MODEL_FORMAT'], ['payment_method.credit_card.month', 'ERR_MODEL_FORMAT']]);
  });

  describe('tokenizeAtEdge', () => {
    it('replaces a full number by its token (token false)', async () => {
      const res = await sandbox.tokenizeAtEdge(m1, pm('4242424242424242', { token: false, extra: 'kept' }));
      expect(res.paymentMethod).toMatchObject({ token: true, cardBinNumber: '424242', cardLast4Digits: '4242', extra: 'kept', holderName: 'Ada Lovelace' });
      expect(res.paymentMethod.cardNumber).toBe(res.card.token);
      expect(await sandbox.reveal(m1, res.card.token)).toMatchObject({ pan: '4242424242424242', holderName: 'Ada Lovelace' });
      // The same card later through tokenize: the same token.
      expect((await sandbox.tokenize(m1, card('4242424242424242'))).card.token).toBe(res.card.token);
    });

    it('treats a digits-only cardNumber without `token` as a full number', async () => {
      const res = await sandbox.tokenizeAtEdge(m1, pm('4000056655665556'));
      expect(res.paymentMethod.cardNumber).toMatch(/^tok_/);
    });

    it('checks a token belongs to the merchant', async () => {
      const { card: c } = await sandbox.tokenize(m1, card('4000000000000002'));
      const ok = await sandbox.tokenizeAtEdge(m1, pm(c.token, { token: true }));
      expect(ok).toMatchObject({ paymentMethod: { cardNumber: c.token, token: true }, card: { token: c.token }, testCard: { processor: { outcome: 'decline', responseCode: '05' } } });
      expect((await sandbox.tokenizeAtEdge(m1, pm(c.token))).card.token).toBe(c.token);
      for (const [merchant, token] of [[m2, c.token], [m1, 'tok_unknown']] as const) {
        const err = await rejection(sandbox.tokenizeAtEdge(merchant, pm(token, { token: true })));
        expect(err.code).toBe('ERR_VAULT_TOKEN_UNKNOWN');
        expect(err.errors[0]).toMatchObject({ field: 'paymentMethod.cardNumber', code: 'ERR_VAULT_TOKEN_UNKNOWN' });
      }
    });

    it('answers field errors under paymentMethod names', async () => {
      const err = await rejection(sandbox.tokenizeAtEdge(m1, pm('4111111111111111', { token: false, expirationYear: 2020, holderName: '' })));
      expect(err.errors.map((e) => [e.field, e.code])).toEqual([['paymentMethod.expirationYear', 'ERR_VAULT_CARD_EXPIRED'], ['paymentMethod.holderName', 'ERR_MODEL_REQUIRED']]);
      const notTest = await rejection(sandbox.tokenizeAtEdge(m1, pm('4012000033330026', { token: false })));
      expect(notTest.errors[0]).toMatchObject({ field: 'paymentMethod.cardNumber', code: 'ERR_VAULT_NOT_TEST_CARD' });
    });

    it('hands the email-bound test card to the payer-email rule, by number or by token', async () => {
      const emailCard = sandboxTestCards().cards.find((c) => c.requiresPayerEmail)!;
      const full = await sandbox.tokenizeAtEdge(m1, pm(emailCard.number, { token: false }));
      expect(full.testCard).toBe(emailCard);
      const byToken = await sandbox.tokenizeAtEdge(m1, pm(full.card.token, { token: true }));
      expect(byToken.testCard).toBe(emailCard);
      expect(checkSandboxPayerEmail(byToken.testCard, 'someone@example.com')?.code).toBe('ERR_VAULT_PAYER_EMAIL_REQUIRED');
      expect(checkSandboxPayerEmail(byToken.testCard, emailCard.requiresPayerEmail)).toBeUndefined();
    });
  });
});
