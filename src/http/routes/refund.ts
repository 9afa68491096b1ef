// POST /v1/orders/{orderSessionKey}/refund (also /refund and /v1/refund with the key in the
// body): a full or partial refund of an APPROVED order.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fieldError, ROOT_FIELD } from '../../domain/field-errors.ts';
import { RescuedError } from '../../errors.ts';
import { readRefundBody, refundOrder } from '../../orders/refund.ts';
import { orderKeyOf } from '../order-key.ts';
import { OrderKeyParamsSchema, RefundBodySchema, RefundResponseSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function refundRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // A body that is not an object (an array, a string, true) was read as no body at all: a
    // full refund. No body is the full refund; any other body must be the refund's object.
    const body = request.body;
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new RescuedError('ERR_MODEL_INVALID', undefined, [fieldError(ROOT_FIELD, 'ERR_MODEL_TYPE', 'must be an object')]);
    }
    const key = orderKeyOf(request);
    const header = request.headers['idempotency-key'];
    const input = readRefundBody(request.body, typeof header === 'string' ? header : undefined);
    const { order, refund, replayed } = await refundOrder(deps.orders, request.merchant!.merchantId, key, input);
    if (replayed) reply.header('idempotent-replayed', 'true');
    request.log.info({ mid: request.merchant!.mid, orderSessionKey: order.id, amount: refund.amount, status: refund.status, replayed }, 'refund');
    return reply.header('cache-control', 'no-store').send({
      success: refund.status === 'SUCCESS', result: refund.status === 'SUCCESS' ? 'Success' : 'Failed', status: refund.status,
      orderSessionKey: order.id, refundId: refund.id, amount: refund.amount, amountRefunded: refund.amount / 100,
      refundedAmount: order.refundedAmount, remainingAmount: order.amount - order.refundedAmount,
    });
  };
  const schema = {
    summary: 'Refund an APPROVED order in full or in part (never more than captured in total)',
    tags: ['orders'], security: BEARER, body: RefundBodySchema,
    response: { 200: RefundResponseSchema, ...errorResponses(400, 401, 404, 409, 422, 429, 503) },
  };
  app.post('/v1/orders/:orderSessionKey/refund', { schema: { ...schema, params: OrderKeyParamsSchema }, preHandler }, handler);
  app.post('/v1/refund', { schema: { ...schema, hide: true }, preHandler }, handler);
  app.post('/refund', { schema: { ...schema, hide: true }, preHandler }, handler);
}
