// POST /v1/orders/{orderSessionKey}/challenge: completes a CHALLENGE with the customer's
// corrected data. The CVV in the body is used once and never logged: nothing of the body is.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { completeChallenge, readChallengeBody } from '../../orders/challenge.ts';
import { decisions } from '../../metrics.ts';
import { ChallengeBodySchema, OrderKeyParamsSchema, OutcomeResponseSchema, errorResponses } from '../schemas.ts';
import { orderSummary } from '../../orders/view.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function challengeRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const input = readChallengeBody(request.body);
    const order = await completeChallenge(deps.orders, request.merchant!.merchantId, (request.params as { orderSessionKey: string }).orderSessionKey, input);
    decisions.inc({ kind: 'CIT', status: order.status });
    request.log.info({ mid: request.merchant!.mid, orderSessionKey: order.id, status: order.status }, 'challenge completed');
    return reply.header('cache-control', 'no-store').send(orderSummary(order));
  };
  app.post('/v1/orders/:orderSessionKey/challenge', {
    schema: {
      summary: 'Complete a CHALLENGE (CVV or 3-D Secure): the order ends APPROVED or DECLINED',
      tags: ['orders'], security: BEARER, params: OrderKeyParamsSchema, body: ChallengeBodySchema,
      response: { 200: OutcomeResponseSchema, ...errorResponses(400, 401, 404, 409, 429, 503) },
    },
    preHandler,
  }, handler);
}
