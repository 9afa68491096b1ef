// The shipped sandbox test-card list: valid against its schema, every number Luhn-valid,
// unique and of its brand, and every outcome and decline reason the sandbox promises present.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CANONICAL_REASONS } from '../../../src/declines/reasons.ts';
import { cardBrandOf, luhnValid } from '../../../src/vault/pan.ts';
import { checkSandboxPayerEmail, DEFAULT_TEST_CARDS_FILE, loadTestCards, OUTCOME_KINDS, sandboxTestCards, type TestCard } from '../../../src/vault/test-cards.ts';

const list = sandboxTestCards();
const outcomes = list.cards.map((c) => c.processor);
const declineCodes = new Set(outcomes.flatMap((o) => ('responseCode' in o ? [o.responseCode] : 'declineCode' in o ? [o.declineCode] : [])));

describe('samples/test-cards.json', () => {
  it('loads once and answers by number', () => {
    expect(sandboxTestCards()).toBe(list);
    expect(list.find('4111111111111111')?.processor).toEqual({ outcome: 'approve' });
    expect(list.find('4111111111111112')).toBeUndefined();
  });

  it('every number is Luhn-valid, unique and of its brand', () => {
    const numbers = list.cards.map((c) => c.number);
    for (const n of numbers) expect(luhnValid(n), n).toBe(true);
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const c of list.cards) expect(cardBrandOf(c.number), c.number).toBe(c.brand);
  });

  it('uses the well-known public test numbers', () => {
    for (const n of ['4111111111111111', '4242424242424242', '5555555555554444', '378282246310005', '6011111111111117', '4000000000000002']) expect(list.find(n), n).toBeDefined();
  });

  it('has every outcome kind', () => {
    expect(new Set(outcomes.map((o) => o.outcome))).toEqual(new Set(OUTCOME_KINDS));
    expect(OUTCOME_KINDS).toEqual(['approve', 'decline', 'approve_after', 'approve_on_payday', 'issuer_outage_then_approve', 'retry_after', 'challenge']);
    expect(new Set(outcomes.flatMap((o) => (o.outcome === 'challenge' ? [o.method] : [])))).toEqual(new Set(['3ds', 'cvv']));
  });

  it('declines for each reason of the reference, and with Mastercard advice codes 03 and 25', () => {
    // insufficient funds, do not honor, lost, stolen, expired, invalid card number, suspected
    // fraud, CVV failure, authentication required, stop payment, closed account, restricted,
    // issuer unavailable, system malfunction.
    for (const code of ['51', '05', '41', '43', '54', '14', '59', 'N7', '1A', 'R1', '46', '62', '91', '96']) expect(declineCodes, code).toContain(code);
    const advice = list.cards.filter((c) => 'merchantAdviceCode' in c.processor);
    expect(advice.map((c) => [c.brand, (c.processor as { merchantAdviceCode: string }).merchantAdviceCode]).sort()).toEqual([['MASTERCARD', '03'], ['MASTERCARD', '25']]);
  });

  it('names only the engine\'s canonical decline reasons', () => {
    for (const o of outcomes) if ('reason' in o) expect(CANONICAL_REASONS).toContain(o.reason);
  });

  it('has exactly one card that requires a payer email', () => {
    const withEmail = list.cards.filter((c) => c.requiresPayerEmail);
    expect(withEmail).toHaveLength(1);
    expect(withEmail[0]!.requiresPayerEmail).toMatch(/^[^@]+@[^@]+$/);
  });

  it('is listed in docs/vault.md, every card with its outcome kind', () => {
    const vaultPage = readFileSync(join(import.meta.dirname, '../../../docs/vault.md'), 'utf8');
    for (const c of list.cards) expect(vaultPage, c.number).toContain(`| \`${c.number}\` | ${c.brand} ${c.type} ${c.country} | \`${c.processor.outcome}\` |`);
  });

  it('refuses a list that breaks the schema or the number rules', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rescued-test-cards-'));
    const base = JSON.parse(readFileSync(DEFAULT_TEST_CARDS_FILE, 'utf8')) as { description: string; cards: TestCard[] };
    const write = (cards: unknown[]) => {
      const file = join(dir, `${Math.random()}.json`);
      writeFileSync(file, JSON.stringify({ ...base, cards }));
      return file;
    };
    const first = base.cards[0]!;
    expect(() => loadTestCards(write([{ ...first, processor: { outcome: 'explode' } }]))).toThrow(/does not match the test-card schema/);
    expect(() => loadTestCards(write([{ ...first, number: '4111111111111112' }]))).toThrow(/ending 1112 .* not Luhn-valid/);
    expect(() => loadTestCards(write([first, first]))).toThrow(/listed twice/);
    expect(() => loadTestCards(write([{ ...first, brand: 'AMEX' }]))).toThrow(/not a AMEX number/);
    expect(loadTestCards(write([first])).cards).toHaveLength(1);
  });
});

describe('checkSandboxPayerEmail', () => {
  const emailCard = list.cards.find((c) => c.requiresPayerEmail)!;
  const email = emailCard.requiresPayerEmail!;

  it('accepts the required email (any case, surrounding spaces) and any email for other cards', () => {
    expect(checkSandboxPayerEmail(emailCard, email)).toBeUndefined();
    expect(checkSandboxPayerEmail(emailCard, ` ${email.toUpperCase()} `)).toBeUndefined();
    expect(checkSandboxPayerEmail(list.find('4111111111111111'), 'someone@example.com')).toBeUndefined();
    expect(checkSandboxPayerEmail(undefined, undefined)).toBeUndefined();
  });

  it('refuses another, missing or NA email for the email card, naming the field', () => {
    for (const other of ['someone@example.com', 'NA', '', undefined, null]) {
      expect(checkSandboxPayerEmail(emailCard, other)).toEqual({ field: 'payer.email', code: 'ERR_VAULT_PAYER_EMAIL_REQUIRED', message: `payer.email must be ${email} for this sandbox test card.` });
    }
    expect(checkSandboxPayerEmail(emailCard, 'x@y.z', 'requests[3].payer.email')?.field).toBe('requests[3].payer.email');
  });
});
