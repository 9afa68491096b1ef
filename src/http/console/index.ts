// The read-only operator console on the side-port (docs/console.md): registered under
// /console as one encapsulated plugin, so its security headers, its error pages and its
// sign-in apply to its own routes only. Assets are files served by @fastify/static: uPlot's
// from node_modules, ours from ./assets — nothing from a CDN, no build step.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { RescuedError } from '../../errors.ts';
import { fromFastifyError, sendError } from '../errors.ts';
import { html, page } from './html.ts';
import { loginRoutes } from './login.ts';
import { sameOriginOnly } from './same-origin.ts';
import { consolePageRoutes } from './routes.ts';
import type { SessionSettings } from './session.ts';
import type { ConsoleDeps } from './deps.ts';

export type { ConsoleDeps } from './deps.ts';

/** No inline script or style, nothing from elsewhere, never framed (DESIGN.md §3a). */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const ASSETS = join(import.meta.dirname, 'assets');
const UPLOT = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));

const FILES: Record<string, [root: string, name: string]> = {
  'console.js': [ASSETS, 'console.js'],
  'console.css': [ASSETS, 'console.css'],
  'favicon.svg': [ASSETS, 'favicon.svg'],
  'uplot.js': [UPLOT, 'uPlot.iife.min.js'],
  'uplot.css': [UPLOT, 'uPlot.min.css'],
};

function securityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    // Not no-referrer: under it a browser sends `Origin: null` on the console's own form posts,
    // and same-origin.ts needs the real origin where Sec-Fetch-Site is not sent (plain HTTP).
    reply.header('referrer-policy', 'same-origin');
    reply.header('cross-origin-opener-policy', 'same-origin');
  });
}

/** JSON routes answer the one error body; pages answer a page saying what went wrong. */
function errorPages(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let known = err instanceof RescuedError ? err : fromFastifyError(err);
    if (!known) {
      request.log.error({ err }, 'console request failed');
      known = new RescuedError('ERR_INTERNAL');
    }
    if (request.url.startsWith('/console/api/')) return sendError(reply, known);
    const body = html`<h1>${known.status === 404 ? 'Not found' : 'Cannot show this'}</h1><p class="error" data-code="${known.code}">${known.message}</p><p><a href="/console">Back to the overview</a></p>`;
    return reply.code(known.status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page({ title: 'Error', page: 'error', body, signedIn: true }));
  });
}

async function consolePlugin(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  securityHeaders(app);
  errorPages(app);
  sameOriginOnly(app, deps.log);
  await app.register(fastifyStatic, { root: ASSETS, serve: false });
  app.get<{ Params: { file: string } }>('/assets/:file', async (request, reply) => {
    // Own keys only: `__proto__` or `constructor` found Object.prototype's members and crashed sendFile (500).
    const file = Object.hasOwn(FILES, request.params.file) ? FILES[request.params.file] : undefined;
    if (!file) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No such asset.');
    return reply.header('cache-control', 'no-cache').sendFile(file[1], file[0], { cacheControl: false });
  });
  const s: SessionSettings = { credential: deps.credential, sessionSeconds: deps.sessionSeconds, now: () => deps.clock.now() };
  loginRoutes(app, s, deps.log);
  consolePageRoutes(app, deps, s);
}

/** Registers the console under /console (the daemon calls it only when console.enabled resolves true). */
export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  await app.register(consolePlugin, { ...deps, prefix: '/console' } as ConsoleDeps & { prefix: string });
  const { tokenFile } = deps.credential;
  deps.log.info({ path: '/console', ...(tokenFile ? { operatorTokenFile: tokenFile } : {}) }, 'console enabled');
}
