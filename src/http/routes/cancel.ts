// POST /v1/orders/{orderSessionKey}/cancel (also /cancel and /v1/cancel with the key in the
// body): an MIT order that is not final becomes CANCELLED.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cancelOrder } from '../../orders/cancel.ts';
import { orderSummary } from '../../orders/view.ts';
import { orderKeyOf } from '../order-key.ts';
import { OrderKeyParamsSchema, OutcomeResponseSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function cancelRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const order = await cancelOrder(deps.orders, request.merchant!.merchantId, orderKeyOf(request));
    request.log.info({ mid: request.merchant!.mid, orderSessionKey: order.id }, 'order cancelled');
    return reply.header('cache-control', 'no-store').send(orderSummary(order));
  };
  const schema = {
    summary: 'Cancel an MIT order that is not final (SUBMITTED, PENDING, PROCESSING)',
    tags: ['orders'], security: BEARER,
    response: { 200: OutcomeResponseSchema, ...errorResponses(400, 401, 404, 409, 429) },
  };
  app.post('/v1/orders/:orderSessionKey/cancel', { schema: { ...schema, params: OrderKeyParamsSchema }, preHandler }, handler);
  app.post('/v1/cancel', { schema: { ...schema, hide: true }, preHandler }, handler);
  app.post('/cancel', { schema: { ...schema, hide: true }, preHandler }, handler);
}
