// GET /metrics: the process's Prometheus metrics (src/metrics.ts), and the hook that counts
// every request by route (as registered, never the raw URL) and status.
import type { FastifyInstance } from 'fastify';
import { httpDuration, httpRequests, registry } from '../../metrics.ts';

export function countRequests(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}

export function metricsRoutes(app: FastifyInstance): void {
  app.get('/metrics', { schema: { summary: 'Prometheus metrics (text exposition format)', tags: ['operations'] } }, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
}
