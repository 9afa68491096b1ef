// Response and small request schemas of the merchant API, for the OpenAPI document only:
// requests are validated by the request model (src/domain/), never by fastify, and answers
// are written by the handlers. The evaluate and transmit bodies are the model's own schemas.
import { Type, type TSchema } from '@sinclair/typebox';
import { RecoveryReportSchema } from '../reports/schema.ts';
import { connectorNames } from '../gateways.ts';

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
  recoveredBy: Nullable(Type.Union([Type.Literal('retry'), Type.Literal('merchant_update'), Type.Literal('account_updater'), Type.Literal('other_card')], { description: 'APPROVED: what recovered the order (docs/engine.md "Card updates"); null otherwise.' })),
};

const DeclineSchema = Type.Object({ reason: Type.String(), class: Type.Optional(Type.String()), code: Nullable(Type.String()), source: Nullable(Type.String()), adviceCode: Nullable(Type.String()) });

const CardUpdateSchema = Type.Object({
  event: Type.Literal('order.card_updated'),
  at: DateTime,
  source: Type.String({ description: 'merchant, account_updater or other_card' }),
  kind: Type.String({ description: 'card (a new card from the merchant); expiry, replacement or closed (the gateway\'s account updater)' }),
  bin: Nullable(Type.String()), last4: Nullable(Type.String()), brand: Nullable(Type.String()),
  expMonth: Nullable(Type.Integer()), expYear: Nullable(Type.Integer()),
  afterAttempts: Type.Integer({ description: 'attempts the order had made when the update arrived' }),
});

export const OutcomeResponseSchema = Type.Object(orderSummaryProps);

export const OrderDetailSchema = Type.Object({
  ...orderSummaryProps,
  card: Type.Object({ bin: Nullable(Type.String()), last4: Nullable(Type.String()), brand: Nullable(Type.String()) }),
  endedCards: Type.Array(Type.Object({ token: Type.String(), last4: Nullable(Type.String()), reason: Nullable(Type.String()), at: Nullable(DateTime) }), {
    description: "The cards the order moved off to the payer's next card (the cascade), oldest first: none of them is charged again. `card` is the one it is on now (or was approved on).",
  }),
  batchId: Nullable(Type.String()),
  sequenceNumber: Nullable(Type.Integer()),
  nextAttempt: Nullable(Type.Object({
    at: Nullable(DateTime),
    reason: Nullable(Type.String({ description: 'the planner\'s reason; awaiting_updated_card: no attempt until an updated card comes (POST …/payment-method), at most until `until`' })),
    decline: Type.Optional(DeclineSchema),
    until: Type.Optional(Nullable(DateTime)),
  })),
  awaitedUpdatedCard: Nullable(Type.Object({ since: DateTime, reason: Type.String({ description: 'the order\'s end if no card had come' }), decline: DeclineSchema }, { description: 'the decline that made the order wait for an updated card, if one did' })),
  cardUpdates: Type.Array(CardUpdateSchema),
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
      card: Type.Object({ source: Type.String({ description: 'original, merchant, account_updater or other_card' }), last4: Nullable(Type.String()) }, { description: 'the credential the attempt charged' }),
      gateway: Nullable(
        Type.Object({
          account: Nullable(Type.String({ description: 'the label of the merchant\'s processor account' })),
          type: Nullable(Type.String({ description: `${connectorNames()} or sandbox` })),
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

export { PaymentMethodUpdateSchema } from '../domain/schemas/payment-method.ts';

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

export const RecoveryReportQuerySchema = Type.Object({
  since: Type.Optional(Type.String({ description: 'Orders created and attempts started from this time (ISO 8601) or for this long back (24h, 30d); absent: every order, attempts of the last 30 days.' })),
});

export const RecoveryReportResponseSchema = Type.Object({ success: Type.Literal(true), result: Type.Literal('Success'), ...RecoveryReportSchema.properties });

const Minor = (description: string) => Type.Integer({ description: `${description}, minor units.` });
const Success = { success: Type.Literal(true), result: Type.Literal('Success') };
const NextCursor = Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' }));

export const OrderListItemSchema = Type.Object({
  orderSessionKey: Key,
  orderId: Type.String(),
  mid: Type.String({ format: 'uuid' }),
  batchId: Nullable(Type.String({ format: 'uuid' })),
  sequenceNumber: Nullable(Type.Integer()),
  kind: Type.Union([Type.Literal('CIT'), Type.Literal('MIT')]),
  status: Type.String(),
  reason: Nullable(Type.String()),
  amount: Minor('Amount'),
  currency: Type.String(),
  refundedAmount: Minor('Refunded so far'),
  attempts: Type.Integer(),
  confirmationId: Nullable(Type.String()),
  card: Type.Object({ brand: Nullable(Type.String()), last4: Nullable(Type.String()) }),
  nextAttemptAt: Nullable(DateTime),
  expiresAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  finishedAt: Nullable(DateTime),
});

export const OrderListResponseSchema = Type.Object({
  ...Success,
  orders: Type.Array(OrderListItemSchema, { description: 'Newest first; with batchId, in sequenceNumber order.' }),
  nextCursor: NextCursor,
});

const batchSummaryProps = {
  batchId: Type.String({ format: 'uuid' }),
  mid: Type.String({ format: 'uuid' }),
  fileName: Type.String(),
  status: Type.Union([Type.Literal('ingesting'), Type.Literal('accepted'), Type.Literal('partially_accepted'), Type.Literal('rejected')]),
  receivedAt: DateTime,
  finishedAt: Nullable(DateTime),
  entries: Type.Integer({ description: 'Entries in the file (while ingesting: counted by the first pass).' }),
  accepted: Type.Integer({ description: 'Entries that became orders (while ingesting: so far).' }),
  rejected: Type.Integer({ description: 'Entries rejected, listed in the ack (while ingesting: so far).' }),
  ackFile: Nullable(Type.String({ description: 'In outbound/; null while ingesting.' })),
  resultsFile: Nullable(Type.String({ description: 'In outbound/, once every order is final; null until then.' })),
  progress: Nullable(
    Type.Object(
      { decided: Type.Integer(), percent: Type.Integer({ minimum: 0, maximum: 100 }), updatedAt: DateTime },
      { description: 'While the file is being ingested: entries decided so far.' },
    ),
  ),
  error: Nullable(
    Type.Object(
      { code: Type.String({ description: 'The ack\'s error.code (ERR_INTAKE_SYNTAX, ERR_INTAKE_UNAUTHORIZED, ERR_INTAKE_FILE_TYPE, …).' }), message: Type.String() },
      { description: 'A file rejected whole (status rejected, no entries kept): why, as its ack says. Null otherwise.' },
    ),
  ),
  bytes: Nullable(Type.Integer({ description: 'The file\'s size as received, recorded with a whole-file rejection; null otherwise.' })),
};

export const BatchListResponseSchema = Type.Object({
  ...Success,
  batches: Type.Array(Type.Object(batchSummaryProps), { description: 'Newest first; files being ingested first.' }),
  nextCursor: NextCursor,
});

export const BatchDetailSchema = Type.Object({
  ...Success,
  ...batchSummaryProps,
  orders: Nullable(
    Type.Object(
      { pending: Type.Integer({ description: 'SUBMITTED, PENDING or PROCESSING.' }), approved: Type.Integer(), expired: Type.Integer(), cancelled: Type.Integer() },
      { description: 'The batch\'s orders by state; null while ingesting.' },
    ),
  ),
  recovered: Type.Array(Type.Object({ currency: Type.String(), amount: Minor('Approved') }), { description: 'Approved amounts by currency.' }),
});

export const BatchParamsSchema = Type.Object({ batchId: Type.String({ format: 'uuid' }) });

/** The error answers a merchant route may give, by status. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorSchema]));
}
