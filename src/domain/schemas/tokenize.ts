// The tokenize request (spec: "Tokenize request"), snake_case as the spec writes it.
import { Type, type Static } from '@sinclair/typebox';
import { OptionalText, Text } from './fields.ts';

export const CreditCardSchema = Type.Object({
  first_name: Text(),
  last_name: Text(),
  number: Type.String({ format: 'card-number', maxLength: 32, description: 'Card number; spaces and hyphens are removed.' }),
  // "Recommended. Leave empty if unavailable."
  verification_value: Type.Optional(Type.String({ format: 'card-cvv', maxLength: 8 })),
  month: Type.String({ format: 'card-month', maxLength: 2, description: 'MM' }),
  year: Type.String({ format: 'card-year', maxLength: 4, description: 'YYYY' }),
});

export const TokenizeRequestSchema = Type.Object(
  {
    payment_method: Type.Object({
      sense_key: OptionalText(),
      credit_card: CreditCardSchema,
    }),
    // Not in the spec's tokenize request: the payer the card belongs to (the same external id as
    // evaluate's payer.id), so the vault can offer the payer's other cards to an order whose card
    // ends hard (docs/api.md, "Tokenize").
    payer: Type.Optional(Type.Object({
      id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "The merchant's id of the payer (evaluate's payer.id): the card is stored as one of this payer's cards." })),
    })),
  },
  { $id: 'TokenizeRequest' },
);

export type CreditCard = Static<typeof CreditCardSchema>;
export type TokenizeRequest = Static<typeof TokenizeRequestSchema>;
