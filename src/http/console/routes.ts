// The console's pages and their JSON, all behind the operator credential: the overview (the
// recovery report), its live part, and an order's page. Read-only: no route changes anything.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RescuedError } from '../../errors.ts';
import { findMerchantByMid } from '../../db/queries/find-merchant.ts';
import { findOrderByKey } from '../../db/queries/order-by-key.ts';
import { listAttempts } from '../../db/queries/find-order.ts';
import { liveFigures, recoveryReport } from '../../reports/recovery.ts';
import { parseSince } from '../../reports/since.ts';
import { sendError } from '../errors.ts';
import { page } from './html.ts';
import { overviewBody } from './pages/overview.ts';
import { batchRows, queueRows, webhookRows } from './pages/live.ts';
import { orderBody } from './pages/order.ts';
import { orderWebhooks } from './order-webhooks.ts';
import { isOperator, type SessionSettings } from './session.ts';
import type { ConsoleDeps } from './deps.ts';

type Query = { since?: unknown; merchant?: unknown; key?: unknown };

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** Pages send a browser to the sign-in form; JSON answers 401 with the one error body. */
function guard(s: SessionSettings, kind: 'page' | 'api') {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> => {
    if (isOperator(s, request)) return;
    if (kind === 'page') return reply.code(303).header('location', '/console/login').header('cache-control', 'no-store').send('');
    return sendError(reply.header('www-authenticate', 'Bearer realm="rescued console"'), new RescuedError('ERR_CONSOLE_UNAUTHORIZED'));
  };
}

async function scopeOf(deps: ConsoleDeps, q: Query) {
  const now = deps.clock.now();
  const since = parseSince(str(q.since) || undefined, now);
  const mid = str(q.merchant).toLowerCase();
  if (!mid) return { now, since, mid: null, merchantId: undefined };
  const merchant = /^[0-9a-f-]{36}$/.test(mid) ? await findMerchantByMid(deps.db, mid) : undefined;
  if (!merchant) throw new RescuedError('ERR_MERCHANT_NOT_FOUND', `No merchant with mid ${mid.slice(0, 40)}.`);
  return { now, since, mid, merchantId: merchant.id };
}

export function consolePageRoutes(app: FastifyInstance, deps: ConsoleDeps, s: SessionSettings): void {
  const pageGuard = { preHandler: guard(s, 'page') };
  const apiGuard = { preHandler: guard(s, 'api') };
  const sendPage = (reply: FastifyReply, title: string, name: string, body: Parameters<typeof page>[0]['body']) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page({ title, page: name, body, signedIn: true }));

  const overview = async (request: FastifyRequest<{ Querystring: Query }>, reply: FastifyReply) => {
    const scope = await scopeOf(deps, request.query);
    const report = await recoveryReport(deps.db, scope);
    return sendPage(reply, 'Overview', 'overview', overviewBody(report, { since: str(request.query.since), mid: scope.mid ?? '', pollMs: deps.livePollMs }));
  };
  // With the /console prefix, '/' answers both /console and /console/.
  app.get<{ Querystring: Query }>('/', pageGuard, overview);

  app.get<{ Querystring: Query }>('/api/report.json', apiGuard, async (request, reply) => {
    const scope = await scopeOf(deps, request.query);
    return reply.header('cache-control', 'no-store').send(await recoveryReport(deps.db, scope));
  });

  // Polled by the overview every few seconds: three index-served statements, not the full report.
  app.get<{ Querystring: Query }>('/api/live.json', apiGuard, async (request, reply) => {
    const scope = await scopeOf(deps, { merchant: request.query.merchant });
    const live = await liveFigures(deps.db, scope);
    const fragments = { queue: queueRows(live.queue).text, webhooks: webhookRows(live.webhooks).text, batches: batchRows(live.batchesInProgress).text };
    return reply.header('cache-control', 'no-store').send({ ...live, fragments });
  });

  app.get<{ Querystring: Query }>('/orders', pageGuard, async (request, reply) => {
    const key = str(request.query.key);
    return reply.code(303).header('location', key ? `/console/orders/${encodeURIComponent(key)}` : '/console').send('');
  });

  app.get<{ Params: { key: string } }>('/orders/:key', pageGuard, async (request, reply) => {
    const found = await findOrderByKey(deps.db, request.params.key);
    if (!found) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No order with this orderSessionKey.');
    const [attempts, webhooks] = [await listAttempts(deps.db, found.order.id), await orderWebhooks(deps.db, found.order)];
    return sendPage(reply, `Order ${found.order.orderId}`, 'order', orderBody({ order: found.order, mid: found.mid, attempts, webhooks }));
  });
}
