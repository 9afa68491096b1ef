// build(deps) → the fastify app of the HTTP side-port. It never listens by itself: the
// daemon calls listen(), tests use inject().
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { Logger } from '../log.ts';
import type { TokenService } from '../auth/tokens.ts';
import { RescuedError } from '../errors.ts';
import { fromFastifyError, sendError } from './errors.ts';
import { requireMerchantWith } from './bearer.ts';
import { oauthTokenRoutes, type OAuthTokenDeps } from './routes/oauth-token.ts';
import { healthRoutes, type HealthDeps } from './routes/health.ts';
import { tokenizeRoutes, type TokenizeDeps } from './routes/tokenize.ts';

export interface HttpDeps extends OAuthTokenDeps, HealthDeps, TokenizeDeps {
  log: Logger;
  tokens: TokenService;
  bodyLimitBytes: number;
  trustProxy: boolean;
  /** Read on every request: true once the daemon has started to drain. */
  isDraining: () => boolean;
}

/** Query parameters that carry credentials (tokenize's `environment`) never reach a log line. */
const SECRET_QUERY = /([?&](?:environment|access_token|client_secret|appSecret)=)[^&]*/gi;

// A serializer that throws takes the process down, so this one reads defensively.
function requestSerializer(req: Partial<FastifyRequest>) {
  const url = String(req.url ?? '');
  return { method: req.method, url: url.replace(SECRET_QUERY, '$1[redacted]'), remoteAddress: req.ip };
}

export async function build(deps: HttpDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log.child({ component: 'http' }, { serializers: { req: requestSerializer } }) as FastifyBaseLogger,
    routerOptions: { ignoreDuplicateSlashes: true },
    bodyLimit: deps.bodyLimitBytes,
    trustProxy: deps.trustProxy,
    return503OnClosing: true,
  });
  await app.register(formbody, { bodyLimit: deps.bodyLimitBytes });

  app.addHook('onRequest', async (_request, reply) => {
    if (deps.isDraining()) return sendError(reply.header('connection', 'close').header('retry-after', '5'), new RescuedError('ERR_HTTP_DRAINING'));
  });

  app.setNotFoundHandler((request, reply) => sendError(reply, new RescuedError('ERR_HTTP_NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}.`)));

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
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    requireMerchant: ReturnType<typeof requireMerchantWith>;
  }
}
