// The sandbox's whitelisted test cards (samples/test-cards.json): one schema, one loader,
// read once. Each card names its deterministic outcome at the sandbox processor in a small
// vocabulary defined here, so the sandbox processor and the documentation read the
// same data. A list that breaks the schema, or holds a number that is not Luhn-valid, is
// not unique, or does not match its brand, stops the process at start.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import type { FieldError } from '../error-types.ts';
import { CARD_BRANDS, cardBrandOf, luhnValid } from './pan.ts';

const Code = (description: string) => Type.String({ pattern: '^[0-9A-Z]{2}$', description });
/** A canonical decline reason of the engine's classifier (src/declines/reasons.ts). */
const Reason = Type.String({ pattern: '^[a-z_]+$' });
const Minutes = Type.Integer({ minimum: 1 });
const strict = <T extends Parameters<typeof Type.Object>[0]>(props: T, description: string) => Type.Object(props, { additionalProperties: false, description });

export const OutcomeSchema = Type.Union([
  strict({ outcome: Type.Literal('approve') }, 'Every attempt is approved.'),
  strict(
    { outcome: Type.Literal('decline'), responseCode: Code('ISO 8583 response code'), reason: Reason, merchantAdviceCode: Type.Optional(Code('Mastercard MAC')) },
    'Every attempt is declined with this code (and advice code).',
  ),
  strict(
    { outcome: Type.Literal('approve_after'), attempts: Type.Integer({ minimum: 1 }), declineCode: Code('ISO 8583 response code'), reason: Reason },
    'The first `attempts` attempts are declined with declineCode; the next one is approved.',
  ),
  strict(
    { outcome: Type.Literal('approve_on_payday'), declineCode: Code('ISO 8583 response code'), reason: Reason },
    "Approved only on a payday in the payer's local time (1st, 15th, last business day of the month, Friday); declined otherwise.",
  ),
  strict(
    { outcome: Type.Literal('issuer_outage_then_approve'), outageMinutes: Minutes, declineCode: Code('ISO 8583 response code'), reason: Reason },
    'Declined with declineCode until outageMinutes after the first attempt; approved afterwards.',
  ),
  strict(
    { outcome: Type.Literal('retry_after'), declineCode: Code('ISO 8583 response code'), reason: Reason, merchantAdviceCode: Code('Mastercard MAC'), waitMinutes: Minutes },
    'Declined with the advice code; an attempt waitMinutes or more after the first decline is approved.',
  ),
  strict({ outcome: Type.Literal('challenge'), method: Type.Union([Type.Literal('3ds'), Type.Literal('cvv')]) }, 'A customer-initiated attempt is answered CHALLENGE.'),
]);

export const TestCardSchema = strict(
  {
    number: Type.String({ pattern: '^\\d{12,19}$' }),
    brand: Type.Union(CARD_BRANDS.map((b) => Type.Literal(b))),
    type: Type.Union([Type.Literal('credit'), Type.Literal('debit'), Type.Literal('prepaid')]),
    country: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }),
    description: Type.String({ minLength: 1 }),
    requiresPayerEmail: Type.Optional(Type.String({ pattern: '^[^@\\s]+@[^@\\s]+$', description: 'evaluate and batch entries with this card must carry this payer.email' })),
    processor: OutcomeSchema,
  },
  'One whitelisted sandbox test card.',
);

export const TestCardListSchema = strict({ description: Type.String(), cards: Type.Array(TestCardSchema, { minItems: 1 }) }, 'samples/test-cards.json');

export type TestCard = Static<typeof TestCardSchema>;
export type TestOutcome = Static<typeof OutcomeSchema>;
export type OutcomeKind = TestOutcome['outcome'];

/** Every outcome kind, from the schema itself (the list test checks each one is used). */
export const OUTCOME_KINDS: readonly OutcomeKind[] = OutcomeSchema.anyOf.map((s: TSchema) => s.properties.outcome.const as OutcomeKind);

export interface TestCardList {
  readonly cards: readonly TestCard[];
  /** The test card with this number (digits only), if it is one. */
  find(pan: string): TestCard | undefined;
}

export const DEFAULT_TEST_CARDS_FILE = join(import.meta.dirname, '../../samples/test-cards.json');

const validate = new Ajv({ allErrors: false, strict: true }).compile<Static<typeof TestCardListSchema>>(TestCardListSchema);

function checkCards(cards: readonly TestCard[], file: string): void {
  const seen = new Set<string>();
  for (const card of cards) {
    // Only the last four in messages: even test numbers are never printed whole.
    const which = `test card ending ${card.number.slice(-4)} in ${file}`;
    if (!luhnValid(card.number)) throw new Error(`${which} is not Luhn-valid`);
    if (seen.has(card.number)) throw new Error(`${which} is listed twice`);
    if (cardBrandOf(card.number) !== card.brand) throw new Error(`${which} is not a ${card.brand} number`);
    seen.add(card.number);
  }
}

export function loadTestCards(file = DEFAULT_TEST_CARDS_FILE): TestCardList {
  const data: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!validate(data)) {
    const e = validate.errors?.[0];
    throw new Error(`${file} does not match the test-card schema: ${e?.instancePath || '/'} ${e?.message ?? ''}`);
  }
  checkCards(data.cards, file);
  const byNumber = new Map(data.cards.map((c) => [c.number, c]));
  return { cards: data.cards, find: (pan) => byNumber.get(pan) };
}

let defaultList: TestCardList | undefined;

/** The shipped list, read and checked on first use and kept for the life of the process. */
export function sandboxTestCards(): TestCardList {
  defaultList ??= loadTestCards();
  return defaultList;
}

/**
 * The sandbox rule "a specific payer email is required when a certain test card is used",
 * for evaluate and batch entries (tokenize has no payer): a FieldError when `card` requires
 * an email and `email` is not it (compared without case or surrounding spaces).
 */
export function checkSandboxPayerEmail(card: TestCard | undefined, email: string | null | undefined, field = 'payer.email'): FieldError | undefined {
  const required = card?.requiresPayerEmail;
  if (!required || (email ?? '').trim().toLowerCase() === required.toLowerCase()) return undefined;
  return { field, code: 'ERR_VAULT_PAYER_EMAIL_REQUIRED', message: `${field} must be ${required} for this sandbox test card.` };
}
