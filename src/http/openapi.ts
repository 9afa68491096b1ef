// The OpenAPI 3.1 document (/openapi.json) generated from the routes' schemas — the request
// model's own TypeBox schemas for evaluate and transmit — and the rendered reference (/docs).
// Must be registered before the routes: @fastify/swagger collects them as they are added.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { webhookDocs } from './webhook-docs.ts';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'rescued',
        version: '1',
        description: 'Declined-transaction rescue: evaluate (CIT real time, MIT asynchronous), transmit, outcome, orders, refund, cancel, tokenize. Every failure answers the one error body; see the README error table for the codes.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /oauth2/token.' } } },
      tags: [{ name: 'orders' }, { name: 'model' }, { name: 'vault' }, { name: 'operations' }],
      // The events a merchant's endpoint receives (OpenAPI 3.1 webhooks).
      webhooks: webhookDocs(),
    } as Record<string, unknown>,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
