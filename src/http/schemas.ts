// Response and small request schemas of the merchant API, for the OpenAPI document only:
// requests are validated by the request model (src/domain/), never by fastify, and answers
// are written by the handlers. The evaluate and transmit bodies are the model's own schemas.
import { Type, type TSchema } from '@sinclair/typebox';

const Nullable = (t: TSchema) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Key = Type.String({ format: 'uuid', description: 'orderSessionKey returned by evaluate.' });

export const FieldErrorSchema = Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() });

export const ErrorSchema = Type.Object(
  {
    success: Type.Literal(false),
    result: Type.Literal('Failed'),
    status: Nullable(Type.String()),
    statusCode: Type.String({ description: 'An ERR_… code of the README error table.' }),
    message: Type.String(),
    errors: Type.Array(FieldErrorSchema),
  },
  { description: 'The one error body of every failure.' },
);

export const EvaluateResponseSchema = Type.Object({
  success: Type.Literal(true),
  result: Type.Literal('Success'),
  status: Type.String({ description: 'CIT: APPROVED, DECLINED or CHALLENGE. MIT: SUBMITTED.' }),
  orderSessionKey: Key,
  senseKey: Type.Optional(Type.String({ description: 'Echo of the request senseKey.' })),
  reason: Type.Optional(Type.String({ description: 'Canonical decline reason (DECLINED, CHALLENGE).' })),
  challenge: Type.Optional(Type.Union([Type.Literal('cvv'), Type.Literal('3ds')], { description: 'What completes the challenge.' })),
  warnings: Type.Optional(Type.Array(FieldErrorSchema)),
});

const orderSummaryProps = {
  success: Type.Literal(true),
  result: Type.Literal('Success'),
  status: Type.String(),
  statusCode: Type.Null(),
  errors: Type.Array(FieldErrorSchema),
  orderSessionKey: Key,
  orderId: Type.String(),
  kind: Type.Union([Type.Literal('CIT'), Type.Literal('MIT')]),
  reason: Nullable(Type.String()),
  confirmationId: Nullable(Type.String()),
  amount: Type.Integer({ description: 'Minor units.' }),
  currency: Type.String(),
  refundedAmount: Type.Integer({ description: 'Minor units refunded so far.' }),
  attempts: Type.Integer(),
  expiresAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  finishedAt: Nullable(DateTime),
};

export const OutcomeResponseSchema = Type.Object(orderSummaryProps);

export const OrderDetailSchema = Type.Object({
  ...orderSummaryProps,
  card: Type.Object({ bin: Nullable(Type.String()), last4: Nullable(Type.String()), brand: Nullable(Type.String()) }),
  batchId: Nullable(Type.String()),
  sequenceNumber: Nullable(Type.Integer()),
  nextAttempt: Nullable(Type.Object({ at: DateTime, reason: Nullable(Type.String()) })),
  attemptHistory: Type.Array(
    Type.Object({
      attemptNo: Type.Integer(),
      status: Type.String(),
      responseCode: Nullable(Type.String()),
      adviceCode: Nullable(Type.String()),
      reason: Nullable(Type.String()),
      declineClass: Nullable(Type.String()),
      planReason: Nullable(Type.String()),
      processorRef: Nullable(Type.String()),
      gateway: Nullable(
        Type.Object({
          account: Nullable(Type.String({ description: 'the label of the merchant\'s processor account' })),
          type: Nullable(Type.String({ description: 'stripe, adyen, braintree, authorizenet, nmi, http or sandbox' })),
          route: Nullable(Type.String({ description: 'why this account: explicit, decliner, default, only, pinned' })),
          rawCode: Nullable(Type.String({ description: 'the gateway\'s own code, as it sent it' })),
          rawMessage: Nullable(Type.String()),
          networkTransactionId: Nullable(Type.String()),
        }),
      ),
      startedAt: DateTime,
      finishedAt: Nullable(DateTime),
    }),
  ),
});

export const OrderKeyBodySchema = Type.Object({ orderSessionKey: Key });
export const OrderKeyParamsSchema = Type.Object({ orderSessionKey: Key });

export const RefundBodySchema = Type.Object({
  amountToRefund: Type.Optional(Type.Union([Type.Number(), Type.String()], { description: 'Major units (10.50). Absent with amount: the rest of the captured amount.' })),
  amount: Type.Optional(Type.Integer({ description: 'Minor units, instead of amountToRefund.' })),
  isPartialRefund: Type.Optional(Type.Boolean()),
  refundMessage: Type.Optional(Type.String()),
  idempotencyKey: Type.Optional(Type.String({ description: 'Also the Idempotency-Key header. A refund is idempotent per order, amount and key.' })),
});

export const RefundResponseSchema = Type.Object({
  success: Type.Boolean(),
  result: Type.String(),
  status: Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAILED')]),
  orderSessionKey: Key,
  refundId: Type.String(),
  amount: Type.Integer({ description: 'This refund, minor units.' }),
  amountRefunded: Type.Number({ description: 'This refund, major units.' }),
  refundedAmount: Type.Integer({ description: 'All refunds of the order, minor units.' }),
  remainingAmount: Type.Integer(),
});

export const ChallengeBodySchema = Type.Object({
  cvv: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$', description: 'Used for this attempt only; never stored.' })),
  threeDSecure: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

export const TransmitResponseSchema = Type.Object({
  success: Type.Literal(true),
  result: Type.Literal('Success'),
  transmitId: Type.String({ format: 'uuid' }),
  warnings: Type.Optional(Type.Array(FieldErrorSchema)),
});

/** The error answers a merchant route may give, by status. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorSchema]));
}
