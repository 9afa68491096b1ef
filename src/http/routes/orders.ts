// GET /v1/orders/{orderSessionKey}: the order with its attempts and its planned next attempt.
import type { FastifyInstance } from 'fastify';
import { RescuedError } from '../../errors.ts';
import { findOrder, listAttempts } from '../../db/queries/find-order.ts';
import { orderDetail } from '../../orders/view.ts';
import { OrderDetailSchema, OrderKeyParamsSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function orderRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  app.get<{ Params: { orderSessionKey: string } }>('/v1/orders/:orderSessionKey', {
    schema: {
      summary: 'An order with its attempt history and planned next attempt',
      tags: ['orders'], security: BEARER, params: OrderKeyParamsSchema,
      response: { 200: OrderDetailSchema, ...errorResponses(401, 404, 429) },
    },
    preHandler,
  }, async (request, reply) => {
    const order = await findOrder(deps.orders.db, request.merchant!.merchantId, request.params.orderSessionKey);
    if (!order) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No such order.');
    return reply.header('cache-control', 'no-store').send(orderDetail(order, await listAttempts(deps.orders.db, order.id)));
  });
}
