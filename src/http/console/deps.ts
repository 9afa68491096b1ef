// What the console needs, built by the daemon from the configuration: apart from the routes
// so the wiring file can name it without importing the pages.
import type { Db } from '../../db/client.ts';
import type { Logger } from '../../log.ts';
import type { Clock } from '../../clock.ts';
import { systemClock } from '../../clock.ts';
import type { ResolvedConfig } from '../../config/index.ts';
import { consoleEnabled, operatorCredential, type OperatorCredential } from './credential.ts';

/** Every few seconds: the live statements are index-served, but a batch in progress is counted order by order. */
export const LIVE_POLL_MS = 5000;

export interface ConsoleDeps {
  db: Db;
  log: Logger;
  clock: Clock;
  credential: OperatorCredential;
  sessionSeconds: number;
  /** How often the overview polls its live part (tests shorten it). */
  livePollMs: number;
}

/** The console's dependencies, or undefined when it is off (console.enabled; by default on in sandbox only). */
export function createConsoleDeps(config: ResolvedConfig, db: Db, log: Logger, clock: Clock = systemClock): ConsoleDeps | undefined {
  if (!consoleEnabled(config)) return undefined;
  return { db, log: log.child({ component: 'console' }), clock, credential: operatorCredential(config), sessionSeconds: config.console.sessionSeconds, livePollMs: LIVE_POLL_MS };
}
