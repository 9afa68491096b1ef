// POST /v1/transmit (also /transmit): an approved payment for the merchant's model. Answered
// 202 at once; the record is stored in bulk shortly after.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TransmitRequestSchema } from '../../domain/index.ts';
import { TransmitResponseSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function transmitRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { transmitId, warnings } = await deps.transmits.accept(request.merchant!, request.body);
    return reply.code(202).send({ success: true, result: 'Success', transmitId, ...(warnings.length ? { warnings } : {}) });
  };
  const schema = {
    summary: 'Report an approved payment (fire and forget); feeds the merchant model',
    tags: ['model'], security: BEARER, body: TransmitRequestSchema,
    response: { 202: TransmitResponseSchema, ...errorResponses(400, 401, 413, 429, 503) },
  };
  app.post('/v1/transmit', { schema, preHandler }, handler);
  app.post('/transmit', { schema: { ...schema, hide: true }, preHandler }, handler);
}
