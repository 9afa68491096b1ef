// The card vault: tokenize a card (checks, sandbox whitelist, encryption, one row per card
// and merchant), find and reveal a card by token, and turn a paymentMethod carrying a full
// number into one carrying a token at the edge of evaluate and batch intake. Card numbers
// leave this module only through `reveal`, for the processor; everything else sees the
// first six and last four digits.
import type { Db } from '../db/client.ts';
import type { CardRow } from '../db/queries/insert-cards.ts';
import { findCardByToken } from '../db/queries/find-card.ts';
import { findCardsByTokens } from '../db/queries/find-cards.ts';
import { updateCardDetails } from '../db/queries/update-card.ts';
import { RescuedError, type FieldError } from '../errors.ts';
import type { KeyRing } from './cipher.ts';
import { checkCard, PAYMENT_METHOD_FIELDS, TOKENIZE_FIELDS, type CardFieldNames, type CardInput, type CheckedCard } from './card-checks.ts';
import { createFingerprinter } from './fingerprint.ts';
import { createCardWriter } from './card-writer.ts';
import { cardBrandOf, maskPan, stripPan } from './pan.ts';
import { newCardToken, openCard, sealCard, type CardSecret } from './sealed-card.ts';
import { eligiblePayerCards, linkPayer, type EligibleQuery } from './payer-cards.ts';
import type { TestCard, TestCardList } from './test-cards.ts';

export interface VaultDeps {
  db: Db;
  ring: KeyRing;
  fingerprintKey: string;
  mode: 'sandbox' | 'production';
  /** The whitelist; required in sandbox mode. */
  testCards?: TestCardList | undefined;
  /** Card-insert statements in flight at once: 1 for PGlite, more for a server's pool. */
  writeConcurrency?: number;
  now?: () => Date;
}

/** A stored card as everyone outside the vault sees it: never the number. */
export interface VaultCard {
  token: string;
  bin: string;
  last4: string;
  month: number;
  year: number;
  brand: string | null;
  test: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface RevealedCard extends VaultCard, CardSecret {}

export interface Tokenized {
  card: VaultCard;
  /** False when the merchant already had this card: the existing token is returned. */
  created: boolean;
  /** The masked number, for logs. */
  masked: string;
  /** In sandbox mode, the test card's entry (outcome, payer-email rule). */
  testCard: TestCard | undefined;
}

/** The paymentMethod fields the edge reads; the rest pass through unchanged. */
export interface EdgePaymentMethod {
  cardNumber: string;
  token?: boolean | undefined;
  holderName?: unknown;
  expirationMonth?: unknown;
  expirationYear?: unknown;
  cardBinNumber?: unknown;
  cardLast4Digits?: unknown;
}

export interface AtEdge<T extends EdgePaymentMethod> {
  paymentMethod: T & { cardNumber: string; token: true };
  card: VaultCard;
  testCard: TestCard | undefined;
}

const toVaultCard = (r: CardRow): VaultCard => ({
  token: r.token, bin: r.bin, last4: r.last4, month: r.expMonth, year: r.expYear,
  brand: r.brand, test: r.test, createdAt: r.createdAt, updatedAt: r.updatedAt,
});

/** Errors of this module first; `prior` (the request schema's) only for fields not yet named. */
function merge(own: FieldError[], prior: readonly FieldError[]): FieldError[] {
  const seen = new Set(own.map((e) => e.field));
  return [...own, ...prior.filter((e) => !seen.has(e.field) && seen.add(e.field))];
}

// In sandbox only whitelisted numbers get in, Luhn-valid or not; a non-listed number is
// this error rather than a format error, because it is the one a sandbox user must learn.
function notTestCard(field: string): FieldError {
  return { field, code: 'ERR_VAULT_NOT_TEST_CARD', message: `${field} is not a sandbox test card: sandbox mode accepts only the numbers listed in samples/test-cards.json.` };
}

function sameDetails(row: CardRow, secret: CardSecret | undefined, card: CheckedCard, activeKeyId: string): boolean {
  return (
    secret !== undefined && row.keyId === activeKeyId && row.expMonth === card.month && row.expYear === card.year &&
    secret.holderName === card.holderName && secret.firstName === card.firstName && secret.lastName === card.lastName
  );
}

export function createVault(deps: VaultDeps) {
  const { db, ring, mode } = deps;
  const fingerprint = createFingerprinter(deps.fingerprintKey);
  const now = deps.now ?? (() => new Date());
  const write = createCardWriter(db, { maxInFlight: deps.writeConcurrency ?? 1 });
  if (mode === 'sandbox' && !deps.testCards) throw new Error('the sandbox vault needs the test-card list');

  function check(input: CardInput, names: CardFieldNames, prior: readonly FieldError[]): { card: CheckedCard; testCard: TestCard | undefined } {
    const result = checkCard(input, names, now());
    let own = result.ok ? [] : result.errors;
    let testCard: TestCard | undefined;
    if (mode === 'sandbox' && typeof input.number === 'string' && input.number.trim() !== '') {
      testCard = deps.testCards!.find(stripPan(input.number));
      own = own.filter((e) => e.field !== names.number);
      if (!testCard) own.unshift(notTestCard(names.number));
    }
    const errors = merge(own, prior);
    if (errors.length === 0 && result.ok) return { card: result.card, testCard };
    const code = errors.some((e) => e.code === 'ERR_VAULT_NOT_TEST_CARD') ? 'ERR_VAULT_NOT_TEST_CARD' : 'ERR_VAULT_CARD_INVALID';
    throw new RescuedError(code, undefined, errors);
  }

  function tryOpen(row: CardRow): CardSecret | undefined {
    try {
      return openCard(ring, row.merchantId, row.token, row.sealed);
    } catch {
      return undefined; // under a key no longer in the ring: re-sealed below
    }
  }

  // Insert first; on a duplicate, reuse the row and its token, refreshing expiry, holder
  // name and key when they differ.
  async function store(merchantId: string, card: CheckedCard, testCard: TestCard | undefined): Promise<{ row: CardRow; created: boolean }> {
    const fp = fingerprint(card.pan);
    const details = (token: string) => ({
      sealed: sealCard(ring, merchantId, token, card),
      keyId: ring.activeKeyId,
      expMonth: card.month,
      expYear: card.year,
      brand: testCard?.brand ?? cardBrandOf(card.pan) ?? null,
      test: mode === 'sandbox',
    });
    const token = newCardToken();
    const { row, inserted } = await write({ token, merchantId, fingerprint: fp, bin: card.pan.slice(0, 6), last4: card.pan.slice(-4), ...details(token) });
    if (inserted) return { row, created: true };
    if (sameDetails(row, tryOpen(row), card, ring.activeKeyId)) return { row, created: false };
    return { row: await updateCardDetails(db, row.id, details(row.token)), created: false };
  }

  /**
   * Checks and stores a card for a merchant. `prior` are errors the request's own schema
   * found, merged so each field is reported once. Throws ERR_VAULT_CARD_INVALID or
   * ERR_VAULT_NOT_TEST_CARD (422) with one FieldError per field.
   */
  async function tokenize(merchantId: string, input: CardInput, names: CardFieldNames = TOKENIZE_FIELDS, prior: readonly FieldError[] = []): Promise<Tokenized> {
    const { card, testCard } = check(input, names, prior);
    const { row, created } = await store(merchantId, card, testCard);
    return { card: toVaultCard(row), created, masked: maskPan(card.pan), testCard };
  }

  async function find(merchantId: string, token: string): Promise<VaultCard | undefined> {
    const row = await findCardByToken(db, merchantId, token);
    return row && toVaultCard(row);
  }

  /** The card with its number and holder, for the processor only; another merchant's token is undefined. */
  async function reveal(merchantId: string, token: string): Promise<RevealedCard | undefined> {
    const row = await findCardByToken(db, merchantId, token);
    return row && { ...toVaultCard(row), ...openCard(ring, merchantId, token, row.sealed) };
  }

  /** reveal for many tokens of one merchant in one read (the sandbox processor's group of calls); unknown tokens are absent. */
  async function revealMany(merchantId: string, tokens: string[]): Promise<Map<string, RevealedCard>> {
    const rows = await findCardsByTokens(db, merchantId, tokens);
    return new Map(rows.map((row) => [row.token, { ...toVaultCard(row), ...openCard(ring, merchantId, row.token, row.sealed) }]));
  }

  return {
    tokenize, find, reveal, revealMany, tokenizeAtEdge: edge(tokenize, find, reveal, mode, deps.testCards),
    /** The keyed fingerprint of a card number (the vault's own): finds the card without keeping the number. */
    fingerprint,
    /** Names the payer on a card (tokenize with payer.id); false for an unknown token or no payer. */
    linkPayer: (merchantId: string, token: string, payerId: unknown) => linkPayer(db, merchantId, token, payerId),
    /** The payer's other eligible cards for an order (the cascade). */
    payerCards: (q: EligibleQuery) => eligiblePayerCards(db, q),
  };
}

import { carriesFullNumber } from './full-number.ts';

export { carriesFullNumber };

function edge(
  tokenize: (merchantId: string, input: CardInput, names: CardFieldNames) => Promise<Tokenized>,
  find: (merchantId: string, token: string) => Promise<VaultCard | undefined>,
  reveal: (merchantId: string, token: string) => Promise<RevealedCard | undefined>,
  mode: 'sandbox' | 'production',
  testCards: TestCardList | undefined,
) {
  /**
   * For evaluate and batch intake: a full number (token false) is tokenized and replaced by
   * its token (bin and last four taken from the number itself); a token must be one of this
   * merchant's. Throws 422 errors naming paymentMethod fields.
   */
  return async function tokenizeAtEdge<T extends EdgePaymentMethod>(merchantId: string, pm: T): Promise<AtEdge<T>> {
    if (carriesFullNumber(pm)) {
      const input = { number: pm.cardNumber, month: pm.expirationMonth, year: pm.expirationYear, holderName: pm.holderName };
      const t = await tokenize(merchantId, input, PAYMENT_METHOD_FIELDS);
      const paymentMethod = { ...pm, cardNumber: t.card.token, token: true as const, cardBinNumber: t.card.bin, cardLast4Digits: t.card.last4 };
      return { paymentMethod, card: t.card, testCard: t.testCard };
    }
    const card = await find(merchantId, pm.cardNumber);
    if (!card) {
      const field = PAYMENT_METHOD_FIELDS.number;
      throw new RescuedError('ERR_VAULT_TOKEN_UNKNOWN', undefined, [{ field, code: 'ERR_VAULT_TOKEN_UNKNOWN', message: `${field} is not a card token of this merchant (tokenize the card first).` }]);
    }
    // Only a sandbox test card needs its number looked at again (its outcome, its email rule).
    const testCard = mode === 'sandbox' && card.test ? testCards?.find((await reveal(merchantId, card.token))!.pan) : undefined;
    return { paymentMethod: { ...pm, token: true as const }, card, testCard };
  };
}

export type Vault = ReturnType<typeof createVault>;
