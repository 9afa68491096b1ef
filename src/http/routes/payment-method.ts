// POST /v1/orders/{orderSessionKey}/payment-method: an updated card for an open MIT order
// (docs/api.md "Updated card"), as a vault token or a card in the tokenize shape. The answer
// is the order as GET /v1/orders/{key} shows it, its new card's first attempt planned now.
import type { FastifyInstance } from 'fastify';
import { RescuedError } from '../../errors.ts';
import { listAttempts } from '../../db/queries/find-order.ts';
import { attachPaymentMethod } from '../../orders/payment-method.ts';
import { orderDetail } from '../../orders/view.ts';
import { OrderDetailSchema, OrderKeyParamsSchema, PaymentMethodUpdateSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function paymentMethodRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  app.post<{ Params: { orderSessionKey: string } }>('/v1/orders/:orderSessionKey/payment-method', {
    schema: {
      summary: 'Attach an updated card to an open MIT order',
      description: 'The body is `{"token": "<card token from /v1/tokenize>"}` or a card in the /v1/tokenize request shape (checked by the same vault checks). The order must be SUBMITTED, PENDING (also while it waits for an updated card) or PROCESSING; its next attempt charges the new card, at once within the card networks\' rules, under the new card\'s own network counters, and the cards the order had before are never charged again for it. order.card_updated is recorded on the order and sent as a webhook.',
      tags: ['orders'], security: BEARER, params: OrderKeyParamsSchema,
      body: PaymentMethodUpdateSchema,
      response: { 200: OrderDetailSchema, ...errorResponses(400, 401, 404, 409, 422, 429) },
    },
    preHandler,
  }, async (request, reply) => {
    const cards = deps.orders.cards;
    if (!cards) throw new RescuedError('ERR_API_PROCESSOR_UNAVAILABLE', 'The vault is not available to this API.');
    const merchant = request.merchant!;
    try {
      const order = await attachPaymentMethod(deps.orders, cards, merchant.merchantId, { orderSessionKey: request.params.orderSessionKey }, request.body);
      request.log.info({ mid: merchant.mid, orderSessionKey: order.id, status: order.status }, 'order card updated by the merchant');
      return reply.header('cache-control', 'no-store').send(orderDetail(order, await listAttempts(deps.orders.db, order.id)));
    } catch (err) {
      // Codes and field names only: the values may be a card number or a CVV.
      if (err instanceof RescuedError) request.log.info({ code: err.code, fields: err.errors.map((e) => `${e.field}:${e.code}`) }, 'card update refused');
      throw err;
    }
  });
}
