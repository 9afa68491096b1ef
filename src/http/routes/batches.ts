// GET /v1/batches and GET /v1/batches/{batchId}: the caller's own batch files — the ack's
// counts, the ack and results file names, its orders by state and the recovered amount, or
// the progress of a file still being ingested (from this process's memory, on both databases:
// src/orders/batch-view.ts). Another merchant's batch is 404.
import type { FastifyInstance } from 'fastify';
import { RescuedError } from '../../errors.ts';
import { batchDetail, batchPage, BatchListQuerySchema, parseBatchQuery } from '../../orders/batch-view.ts';
import { BatchDetailSchema, BatchListResponseSchema, BatchParamsSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function batchRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  app.get('/v1/batches', {
    schema: {
      summary: 'The merchant\'s batch files, newest first, a page at a time',
      description: 'The files being ingested come first on the first page, with their progress. `nextCursor` goes back as `cursor` for the next page.',
      tags: ['batches'], security: BEARER, querystring: BatchListQuerySchema,
      response: { 200: BatchListResponseSchema, ...errorResponses(400, 401, 429) },
    },
    preHandler,
  }, async (request, reply) => {
    const query = parseBatchQuery((request.query ?? {}) as Record<string, unknown>);
    // While an ingest holds PGlite's connection the page is answered from memory (batch-view.ts).
    const { batches, nextCursor } = await batchPage(deps.orders.db, request.merchant!.merchantId, query.limit ?? 50, query.cursor);
    return reply.header('cache-control', 'no-store').send({ success: true, result: 'Success', batches, nextCursor });
  });

  app.get<{ Params: { batchId: string } }>('/v1/batches/:batchId', {
    schema: {
      summary: 'A batch: counts, ack and results files, its orders by state, the recovered amount; or its progress while being ingested',
      tags: ['batches'], security: BEARER, params: BatchParamsSchema,
      response: { 200: BatchDetailSchema, ...errorResponses(401, 404, 429) },
    },
    preHandler,
  }, async (request, reply) => {
    // By id only: a file name is the operator's handle (`rescued batches show`), not the API's.
    const id = request.params.batchId;
    const batch = UUID.test(id) ? await batchDetail(deps.orders.db, id, request.merchant!.merchantId) : undefined;
    if (!batch) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No such batch.');
    return reply.header('cache-control', 'no-store').send({ success: true, result: 'Success', ...batch });
  });
}
