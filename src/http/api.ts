// The merchant API's wiring inside build(): its dependencies, the guard every merchant route
// runs (bearer token, then the merchant's rate limit), and the registration of its routes.
import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import type { OrderDeps } from '../orders/deps.ts';
import type { ApiDeps, Guarded } from './guard.ts';
import { cachedEdge } from '../orders/card-cache.ts';
import { createTransmitBuffer, type Fingerprint } from '../orders/transmit.ts';
import { createOwnIdsCheck } from '../orders/own-ids.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Config } from '../config/index.ts';
import { createRateLimiter } from './rate-limit.ts';
import { evaluateRoutes } from './routes/evaluate.ts';
import { challengeRoutes } from './routes/challenge.ts';
import { transmitRoutes } from './routes/transmit.ts';
import { outcomeRoutes } from './routes/outcome.ts';
import { orderRoutes } from './routes/orders.ts';
import { refundRoutes } from './routes/refund.ts';
import { cancelRoutes } from './routes/cancel.ts';
import { paymentMethodRoutes } from './routes/payment-method.ts';
import { batchRoutes } from './routes/batches.ts';
import { reportRoutes } from './routes/reports.ts';

export function apiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const limit = createRateLimiter(deps.orders.db, deps.orders.clock, deps.rateLimit);
  const g: Guarded = { deps, preHandler: [app.requireMerchant as preHandlerHookHandler, limit as preHandlerHookHandler] };
  evaluateRoutes(app, g);
  challengeRoutes(app, g);
  transmitRoutes(app, g);
  outcomeRoutes(app, g);
  orderRoutes(app, g);
  refundRoutes(app, g);
  cancelRoutes(app, g);
  paymentMethodRoutes(app, g);
  batchRoutes(app, g);
  reportRoutes(app, g);
  app.addHook('onClose', () => deps.transmits.stop());
}

export interface ApiDepsInput {
  db: OrderDeps['db'];
  vault: OrderDeps['vault'] & Partial<NonNullable<OrderDeps['cards']>> & { fingerprint?: Fingerprint };
  processor: OrderDeps['processor'];
  mode: OrderDeps['mode'];
  clock?: Clock;
  log: Logger;
  config: Config['api'];
}

/** The vault's calls a card update needs, when the vault given has them. */
function cardsOf(vault: ApiDepsInput['vault']): Pick<OrderDeps, 'cards'> {
  const { tokenize, find } = vault;
  return tokenize && find ? { cards: { tokenize, find } } : {};
}

/** The API's dependencies from the configuration's `api` section. */
export function createApiDeps(i: ApiDepsInput): ApiDeps {
  const clock = i.clock ?? systemClock;
  const log = i.log.child({ component: 'api' });
  const ownIds = createOwnIdsCheck(i.db);
  return {
    orders: { db: i.db, vault: cachedEdge(i.vault), processor: i.processor, mode: i.mode, clock, log, settings: i.config, ownIds, ...cardsOf(i.vault) },
    transmits: createTransmitBuffer({ db: i.db, clock, log, mode: i.mode, settings: i.config, ownIds, ...(i.vault.fingerprint ? { fingerprint: i.vault.fingerprint } : {}) }),
    rateLimit: i.config,
    // Production keeps its surface small: the reference only when asked for, metrics only
    // behind their own token (README, Security).
    docsEnabled: i.config.docsEnabled ?? i.mode === 'sandbox',
    metricsEnabled: i.config.metricsEnabled && (i.mode === 'sandbox' || i.config.metricsToken !== ''),
    metricsToken: i.config.metricsToken,
  };
}
