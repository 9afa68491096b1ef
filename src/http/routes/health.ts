// Liveness and readiness for systemd watchdogs, load balancers and operators.
import type { FastifyInstance } from 'fastify';

export interface HealthDeps {
  /** Resolves when the database answers; rejects otherwise. */
  pingDatabase: () => Promise<void>;
}

export function healthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await deps.pingDatabase();
      return { status: 'ready' };
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed: database unreachable');
      return reply.code(503).send({ status: 'unavailable', reason: 'database' });
    }
  });
}
