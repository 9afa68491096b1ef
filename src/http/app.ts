// build(deps) → the fastify app of the HTTP side-port. It never listens by itself: the
// daemon calls listen(), tests use inject().
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { scrubUrl, type Logger } from '../log.ts';
import type { TokenService } from '../auth/tokens.ts';
import { RescuedError } from '../errors.ts';
import { fromFastifyError, sendError } from './errors.ts';
import { requireMerchantWith } from './bearer.ts';
import { oauthTokenRoutes, type OAuthTokenDeps } from './routes/oauth-token.ts';
import { healthRoutes, type HealthDeps } from './routes/health.ts';
import { tokenizeRoutes, type TokenizeDeps } from './routes/tokenize.ts';
import { apiRoutes } from './api.ts';
import type { ApiDeps } from './guard.ts';
import { registerOpenApi } from './openapi.ts';
import { bodyBounds } from './body-bounds.ts';
import { countRequests, metricsRoutes } from './routes/metrics.ts';
import { registerConsole, type ConsoleDeps } from './console/index.ts';

export interface HttpDeps extends OAuthTokenDeps, HealthDeps, TokenizeDeps {
  log: Logger;
  tokens: TokenService;
  bodyLimitBytes: number;
  trustProxy: boolean;
  /** PEM certificate and key: the side-port speaks HTTPS. */
  tls?: { cert: Buffer; key: Buffer } | undefined;
  /** Read on every request: true once the daemon has started to drain. */
  isDraining: () => boolean;
  /** The merchant API: evaluate, transmit, outcome, orders, refund, cancel, docs, metrics. */
  api: ApiDeps;
  /** The operator console at /console (docs/console.md); undefined: off. */
  operatorConsole?: ConsoleDeps | undefined;
}

const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

// A serializer that throws takes the process down, so this one reads defensively. Its output
// is written after the logger's formatters have run, so it scrubs the URL itself: a card
// number in the path, credentials and card fields in the query (`?card=…&cvv=…`).
function requestSerializer(req: Partial<FastifyRequest>) {
  return { method: req.method, url: scrubUrl(String(req.url ?? '')), remoteAddress: req.ip };
}

export async function build(deps: HttpDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log.child({ component: 'http' }, { serializers: { req: requestSerializer } }) as FastifyBaseLogger,
    routerOptions: { ignoreDuplicateSlashes: true },
    bodyLimit: deps.bodyLimitBytes,
    trustProxy: deps.trustProxy,
    return503OnClosing: true,
    // Fastify logs a request twice (received, completed); the onResponse hook below logs it once.
    logController: new LogController({ disableRequestLogging: true }),
    // A path fastify's router cannot read (bad percent-encoding, a parameter past its length
    // limit) names no resource; fastify answered these itself, outside the catalogue (400, 414).
    frameworkErrors: (err, _request, reply) => sendError(reply, err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? new RescuedError('ERR_HTTP_NOT_FOUND') : new RescuedError('ERR_INTERNAL')),
    ...(deps.tls ? { https: deps.tls } : {}),
  });
  await app.register(formbody, { bodyLimit: deps.bodyLimitBytes });
  // Route schemas document the API; bodies are validated by the request model (after
  // normalising the spec's spelling variants), never by fastify, and answers are written whole.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  bodyBounds(app);
  if (deps.api.docsEnabled) await registerOpenApi(app);
  if (deps.api.metricsEnabled) countRequests(app);

  // One line per request, once it is answered: method, URL (scrubbed), status and time taken.
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, url: scrubUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });

  app.addHook('onRequest', async (_request, reply) => {
    if (deps.isDraining()) return sendError(reply.header('connection', 'close').header('retry-after', '5'), new RescuedError('ERR_HTTP_DRAINING'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = (request.url.split('?')[0] ?? '/').replace(/\/{2,}/g, '/');
    // A path that exists under other methods is 405 with Allow (RFC 9110 §15.5.6), not 404.
    const allowed = ROUTE_METHODS.filter((m) => m !== request.method && app.hasRoute({ method: m, url: path }));
    if (allowed.length > 0) return sendError(reply.header('allow', allowed.join(', ')), new RescuedError('ERR_HTTP_METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; use ${allowed.join(' or ')}.`));
    return sendError(reply, new RescuedError('ERR_HTTP_NOT_FOUND', `No route for ${request.method} ${path}.`));
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const known = err instanceof RescuedError ? err : fromFastifyError(err);
    if (known) return sendError(reply, known);
    request.log.error({ err }, 'unhandled error');
    return sendError(reply, new RescuedError('ERR_INTERNAL'));
  });

  app.decorate('requireMerchant', requireMerchantWith(deps.tokens));
  healthRoutes(app, deps);
  oauthTokenRoutes(app, deps);
  tokenizeRoutes(app, deps);
  apiRoutes(app, deps.api);
  if (deps.api.metricsEnabled) metricsRoutes(app, deps.api.metricsToken);
  if (deps.operatorConsole) await registerConsole(app, deps.operatorConsole);
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    requireMerchant: ReturnType<typeof requireMerchantWith>;
  }
}
