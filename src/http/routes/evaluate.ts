// POST /v1/evaluate (also /evaluate): a declined transaction in, a decision out — real time
// for a CIT, SUBMITTED for an MIT. The body goes to the request model as sent (normalising
// the spec's spelling variants first); fastify never validates it.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EvaluateRequestSchema } from '../../domain/index.ts';
import { RescuedError } from '../../errors.ts';
import { evaluate } from '../../orders/evaluate.ts';
import { EvaluateResponseSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function requestHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body ?? null)).digest('base64url');
}

export function evaluateRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const merchant = request.merchant!;
    try {
      const answer = await evaluate(deps.orders, merchant, request.body, requestHash(request.body));
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      request.log.info({ mid: merchant.mid, orderSessionKey: answer.body.orderSessionKey, status: answer.body.status, replayed: answer.replayed }, 'evaluated');
      return reply.code(answer.statusCode).header('cache-control', 'no-store').send(answer.body);
    } catch (err) {
      // Codes and field names only: values may be card data.
      if (err instanceof RescuedError) request.log.info({ mid: merchant.mid, code: err.code, fields: err.errors.map((e) => `${e.field}:${e.code}`) }, 'evaluate refused');
      throw err;
    }
  };
  const schema = {
    summary: 'Evaluate a declined transaction (CIT real time, MIT asynchronous)',
    tags: ['orders'],
    security: BEARER,
    body: EvaluateRequestSchema,
    response: { 200: EvaluateResponseSchema, ...errorResponses(400, 401, 409, 413, 422, 429, 503) },
  };
  app.post('/v1/evaluate', { schema, preHandler }, handler);
  app.post('/evaluate', { schema: { ...schema, hide: true }, preHandler }, handler);
}
