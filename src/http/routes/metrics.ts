// GET /metrics: the process's Prometheus metrics (src/metrics.ts), and the hook that counts
// every request by route (as registered, never the raw URL) and status.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { httpDuration, httpRequests, registry } from '../../metrics.ts';
import { RescuedError } from '../../errors.ts';
import { bearerToken } from '../bearer.ts';
import { sendError } from '../errors.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time: digests of equal length, so neither the length nor a prefix leaks. */
function tokenMatches(given: string | undefined, expected: string): boolean {
  return given !== undefined && timingSafeEqual(sha256(given), sha256(expected));
}

export function countRequests(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}

export function metricsRoutes(app: FastifyInstance, token: string): void {
  app.get('/metrics', { schema: { summary: 'Prometheus metrics (text exposition format)', tags: ['operations'] } }, async (request, reply) => {
    if (token && !tokenMatches(bearerToken(request.headers.authorization), token)) {
      return sendError(reply.header('www-authenticate', 'Bearer realm="rescued-metrics"'), new RescuedError('ERR_AUTH_TOKEN_MISSING', 'GET /metrics needs the configured metrics token (api.metricsToken).'));
    }
    const text = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(text);
  });
}
