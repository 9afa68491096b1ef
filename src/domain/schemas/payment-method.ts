// The body of POST /v1/orders/{orderSessionKey}/payment-method and of a batch file's update
// entry: a vault token from /v1/tokenize, or a card in the tokenize request's shape (checked
// by the same vault checks as /v1/tokenize).
import { Type, type Static } from '@sinclair/typebox';
import { TokenizeRequestSchema } from './tokenize.ts';

export const PaymentMethodTokenSchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 128, description: 'A card token of this merchant, from /v1/tokenize.' }) },
  { additionalProperties: false },
);

export const PaymentMethodUpdateSchema = Type.Union([PaymentMethodTokenSchema, TokenizeRequestSchema], { $id: 'PaymentMethodUpdate' });

export type PaymentMethodToken = Static<typeof PaymentMethodTokenSchema>;
