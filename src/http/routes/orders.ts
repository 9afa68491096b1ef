// GET /v1/orders/{orderSessionKey}: the order with its attempts and its planned next attempt.
// GET /v1/orders: the caller's own orders, a page at a time (cursor), by orderId, status,
// batch and creation time; `orderId` names at most one order, and none is 404.
import type { FastifyInstance } from 'fastify';
import { RescuedError } from '../../errors.ts';
import { findOrder, listAttempts } from '../../db/queries/find-order.ts';
import { orderDetail } from '../../orders/view.ts';
import { orderListItem, orderPage, OrderListQuerySchema, parseOrderQuery } from '../../orders/listing.ts';
import { OrderDetailSchema, OrderKeyParamsSchema, OrderListResponseSchema, errorResponses } from '../schemas.ts';
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

  app.get('/v1/orders', {
    schema: {
      summary: 'The merchant\'s orders, newest first, a page at a time; or the one with an orderId',
      description: 'Filters combine. With `batchId` the orders come in sequenceNumber order. A page holds `limit` orders and `nextCursor`, to send back as `cursor` for the next page (null on the last). `orderId` finds the merchant\'s order with that id, or answers 404.',
      tags: ['orders'], security: BEARER, querystring: OrderListQuerySchema,
      response: { 200: OrderListResponseSchema, ...errorResponses(400, 401, 404, 429) },
    },
    preHandler,
  }, async (request, reply) => {
    const query = await parseOrderQuery((request.query ?? {}) as Record<string, unknown>, deps.orders.clock.now());
    const page = await orderPage(deps.orders.db, request.merchant!.merchantId, query);
    if (query.orderId !== undefined && page.orders.length === 0) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No order with this orderId.');
    return reply.header('cache-control', 'no-store').send({ success: true, result: 'Success', orders: page.orders.map(orderListItem), nextCursor: page.nextCursor });
  });
}
