// The webhook events in the OpenAPI document (OpenAPI 3.1 `webhooks`): what a merchant's
// endpoint receives, one entry per event type (docs/webhooks.md). The body is the outbox's
// payload (src/webhooks/outbox.ts eventPayload); the signatures are in docs/webhooks.md.
import { Type, type TSchema } from '@sinclair/typebox';
import { ORDER_EVENTS } from '../webhooks/outbox.ts';

const Nullable = (t: TSchema) => Type.Union([t, Type.Null()]);

const EVENT_DATA_EXTRAS: Record<string, Record<string, TSchema>> = {
  'order.completed': { recoveredBy: Type.String({ description: 'retry, merchant_update, account_updater or other_card' }) },
  'order.refunded': { refundedAmount: Type.Number({ description: 'major units refunded so far' }) },
  'order.card_update_needed': {
    decline: Type.Object({ reason: Type.String(), class: Type.String(), code: Nullable(Type.String()), source: Nullable(Type.String()), adviceCode: Nullable(Type.String()) }, { description: 'the decline that means the card must change' }),
    awaitingUntil: Nullable(Type.String({ format: 'date-time', description: 'expiryDateUtc: an updated card is taken until then' })),
  },
  'order.card_updated': {
    card: Type.Object({
      source: Type.String({ description: 'merchant, account_updater or other_card' }), kind: Type.String({ description: 'card, expiry, replacement or closed' }),
      bin: Nullable(Type.String()), last4: Nullable(Type.String()), brand: Nullable(Type.String()), expMonth: Nullable(Type.Integer()), expYear: Nullable(Type.Integer()),
    }),
  },
};

function eventSchema(type: string, name: string): TSchema {
  return Type.Object({
    Event: Type.Literal(name),
    TimeStamp: Type.String({ format: 'date-time' }),
    EventData: Type.Object({
      type: Type.Literal(type), status: Type.String(), reason: Nullable(Type.String()), amount: Type.Number({ description: 'major units' }),
      currency: Type.String(), attempts: Type.Integer(), ...Object.fromEntries(Object.entries(EVENT_DATA_EXTRAS[type] ?? {}).map(([k, v]) => [k, Type.Optional(v)])),
    }),
    ExternalOrderId: Type.String({ description: 'the merchant\'s orderId' }),
    OrderId: Type.String({ description: 'the orderSessionKey' }),
    ConfirmationId: Nullable(Type.String()),
    IsTestMode: Type.Boolean(),
    IsResent: Type.Boolean(),
  });
}

/** One POST per event type, as the merchant's endpoint receives it. */
export function webhookDocs(): Record<string, unknown> {
  return Object.fromEntries(Object.entries(ORDER_EVENTS).map(([type, name]) => [type, {
    post: {
      summary: `${name}: sent to the merchant's webhook URL`,
      description: 'Signed two ways (Standard Webhooks webhook-id/-timestamp/-signature, and x-fc-*); see docs/webhooks.md.',
      requestBody: { content: { 'application/json': { schema: eventSchema(type, name) } } },
      responses: { 200: { description: 'Any 2xx acknowledges the event; anything else is retried (410 disables the endpoint).' } },
    },
  }]));
}
