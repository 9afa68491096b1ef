// POST /v1/outcome (also /outcome) with {"orderSessionKey"}: the order's status now.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RescuedError } from '../../errors.ts';
import { findOrder } from '../../db/queries/find-order.ts';
import { orderSummary } from '../../orders/view.ts';
import { orderKeyOf } from '../order-key.ts';
import { OrderKeyBodySchema, OutcomeResponseSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function outcomeRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const order = await findOrder(deps.orders.db, request.merchant!.merchantId, orderKeyOf(request));
    if (!order) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No such order.');
    return reply.header('cache-control', 'no-store').send(orderSummary(order));
  };
  const schema = {
    summary: 'Status of an order (answered CHALLENGE or SUBMITTED at evaluate)',
    tags: ['orders'], security: BEARER, body: OrderKeyBodySchema,
    response: { 200: OutcomeResponseSchema, ...errorResponses(400, 401, 404, 429) },
  };
  app.post('/v1/outcome', { schema, preHandler }, handler);
  app.post('/outcome', { schema: { ...schema, hide: true }, preHandler }, handler);
}
