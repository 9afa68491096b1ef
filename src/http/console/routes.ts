// The console's pages and their JSON, all behind the operator credential: the overview (the
// recovery report), its live part, the orders behind its figures, every batch, and an order's
// page. Read-only: no route changes anything.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RescuedError } from '../../errors.ts';
import { findOrderByKey } from '../../db/queries/order-by-key.ts';
import { listAttempts } from '../../db/queries/find-order.ts';
import { sendError } from '../errors.ts';
import { page } from './html.ts';
import { overviewBody } from './pages/overview.ts';
import { batchRows, queueRows, webhookRows } from './pages/live.ts';
import { orderBody } from './pages/order.ts';
import { lookupBody, ordersBody } from './pages/orders.ts';
import { batchesBody } from './pages/batches.ts';
import { orderHref } from './pages/links.ts';
import { consoleBatches, consoleOrders, lookupOrder, type OrdersQuery } from './orders-list.ts';
import { orderWebhooks } from './order-webhooks.ts';
import { liveAnswer, reportAnswer, str, type Query } from './live.ts';
import { isOperator, type SessionSettings } from './session.ts';
import type { ConsoleDeps } from './deps.ts';

/** Pages send a browser to the sign-in form; JSON answers 401 with the one error body. */
function guard(s: SessionSettings, kind: 'page' | 'api') {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> => {
    if (isOperator(s, request)) return;
    if (kind === 'page') return reply.code(303).header('location', '/console/login').header('cache-control', 'no-store').send('');
    return sendError(reply.header('www-authenticate', 'Bearer realm="rescued console"'), new RescuedError('ERR_CONSOLE_UNAUTHORIZED'));
  };
}

export function consolePageRoutes(app: FastifyInstance, deps: ConsoleDeps, s: SessionSettings): void {
  const pageGuard = { preHandler: guard(s, 'page') };
  const apiGuard = { preHandler: guard(s, 'api') };
  const sendPage = (reply: FastifyReply, title: string, name: string, body: Parameters<typeof page>[0]['body']) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page({ title, page: name, body, signedIn: true }));

  const overview = async (request: FastifyRequest<{ Querystring: Query }>, reply: FastifyReply) => {
    const { report, mid } = await reportAnswer(deps, request.query);
    return sendPage(reply, 'Overview', 'overview', overviewBody(report, { since: str(request.query.since), mid: mid ?? '', pollMs: deps.livePollMs }));
  };
  // With the /console prefix, '/' answers both /console and /console/.
  app.get<{ Querystring: Query }>('/', pageGuard, overview);

  app.get<{ Querystring: Query }>('/api/report.json', apiGuard, async (request, reply) => {
    return reply.header('cache-control', 'no-store').send((await reportAnswer(deps, request.query)).report);
  });

  // Polled by the overview every few seconds: three index-served statements, not the full report;
  // the files being ingested from memory (live.ts). A figure not known during an ingest on
  // PGlite has no fragment: the page keeps what it shows.
  app.get<{ Querystring: Query }>('/api/live.json', apiGuard, async (request, reply) => {
    const live = await liveAnswer(deps, request.query);
    const fragments = {
      ...(live.queue ? { queue: queueRows(live.queue).text } : {}),
      ...(live.webhooks ? { webhooks: webhookRows(live.webhooks).text } : {}),
      batches: batchRows(live.batchesInProgress).text,
    };
    return reply.header('cache-control', 'no-store').send({ ...live, fragments });
  });

  // The orders behind a figure (state, decline reason, batch, in the overview's scope); with
  // `key` ("Open order"), the order with that orderSessionKey or merchant orderId.
  app.get<{ Querystring: OrdersQuery }>('/orders', pageGuard, async (request, reply) => {
    const key = str(request.query.key);
    if (key) {
      const found = await lookupOrder(deps, key, str(request.query.merchant));
      if (!found) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No order with this orderSessionKey or orderId.');
      if ('orderSessionKey' in found) return reply.code(303).header('location', orderHref(found.orderSessionKey)).send('');
      return sendPage(reply, `Orders ${key}`, 'orders', lookupBody(key, found.page));
    }
    const { filter, page: orders } = await consoleOrders(deps, request.query);
    return sendPage(reply, 'Orders', 'orders', ordersBody(filter, orders));
  });

  app.get<{ Querystring: Query & { cursor?: unknown } }>('/batches', pageGuard, async (request, reply) => {
    const { merchant, page: batches } = await consoleBatches(deps, request.query);
    return sendPage(reply, 'Batches', 'batches', batchesBody(merchant, batches));
  });

  app.get<{ Params: { key: string } }>('/orders/:key', pageGuard, async (request, reply) => {
    const found = await findOrderByKey(deps.db, request.params.key);
    if (!found) throw new RescuedError('ERR_HTTP_NOT_FOUND', 'No order with this orderSessionKey.');
    const [attempts, webhooks] = [await listAttempts(deps.db, found.order.id), await orderWebhooks(deps.db, found.order)];
    return sendPage(reply, `Order ${found.order.orderId}`, 'order', orderBody({ order: found.order, mid: found.mid, attempts, webhooks }));
  });
}
