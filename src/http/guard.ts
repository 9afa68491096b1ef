// What every merchant route is handed: the API's dependencies and the guard it runs first
// (bearer token, then the merchant's rate limit). Apart from api.ts, which registers the
// routes, so a route can name these without importing its own registrar.
import type { preHandlerHookHandler } from 'fastify';
import type { OrderDeps } from '../orders/deps.ts';
import type { TransmitBuffer } from '../orders/transmit.ts';
import type { RateLimitSettings } from './rate-limit.ts';

export interface ApiDeps {
  orders: OrderDeps;
  transmits: TransmitBuffer;
  rateLimit: RateLimitSettings;
  docsEnabled: boolean;
  metricsEnabled: boolean;
  /** When set, GET /metrics requires `Authorization: Bearer <metricsToken>`. */
  metricsToken: string;
}

export interface Guarded {
  deps: ApiDeps;
  preHandler: preHandlerHookHandler[];
}
