// GET /v1/reports/recovery: the calling merchant's recovery figures — the same object the
// console and `rescued report --merchant <mid>` show, from the same query module, limited to
// the merchant of the bearer token (no query parameter can widen it).
import type { FastifyInstance } from 'fastify';
import { recoveryReport } from '../../reports/recovery.ts';
import { parseSince } from '../../reports/since.ts';
import { RecoveryReportQuerySchema, RecoveryReportResponseSchema, errorResponses } from '../schemas.ts';
import { BEARER } from '../bearer.ts';
import type { Guarded } from '../guard.ts';

export function reportRoutes(app: FastifyInstance, { deps, preHandler }: Guarded): void {
  app.get<{ Querystring: { since?: string } }>('/v1/reports/recovery', {
    schema: {
      summary: 'Recovery figures of the calling merchant: orders by state, recovered amount and rate (overall, by decline reason, by card brand), attempts per day, queue, webhook backlog, batches in progress',
      tags: ['reports'], security: BEARER, querystring: RecoveryReportQuerySchema,
      response: { 200: RecoveryReportResponseSchema, ...errorResponses(400, 401, 429) },
    },
    preHandler,
  }, async (request, reply) => {
    const now = deps.orders.clock.now();
    const since = parseSince(typeof request.query.since === 'string' ? request.query.since : undefined, now);
    const { merchantId, mid } = request.merchant!;
    const report = await recoveryReport(deps.orders.db, { merchantId, mid, since, now });
    return reply.header('cache-control', 'no-store').send({ success: true, result: 'Success', ...report });
  });
}
