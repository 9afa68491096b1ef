// The operator's webhook commands (src/cli/webhooks.ts) over the outbox tables: list
// deliveries, replay events, enable an endpoint a 410 disabled.
import type { Db } from '../db/client.ts';
import { systemClock, type Clock } from '../clock.ts';
import { RescuedError } from '../errors.ts';
import { listWebhookDeliveries } from '../db/queries/list-webhook-deliveries.ts';
import { replayWebhookEvents, type ReplaySelector } from '../db/queries/replay-webhook-events.ts';
import { enableWebhookEndpoint } from '../db/queries/enable-webhook-endpoint.ts';
import { parseDurationMs } from '../duration.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EVENT_ID = /^msg_[0-9a-f]{32}$/;

/** `--since`: an ISO 8601 / RFC 1123 time, or a duration back from now (`90m`, `24h`, `7d`). */
export function parseSince(text: string, now: Date): Date {
  const back = parseDurationMs(text);
  if (back !== undefined) return new Date(now.getTime() - back);
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new RescuedError('ERR_WEBHOOK_INVALID_INPUT', `"${text}" is neither a time (2026-11-22T06:00:00Z) nor a duration (90m, 24h, 7d).`);
  return new Date(ms);
}

export function createWebhookOperations(db: Db, clock: Clock = systemClock) {
  return {
    list: (o: { failed?: boolean | undefined; mid?: string | undefined; limit?: number | undefined }) => {
      if (o.mid && !UUID.test(o.mid)) throw new RescuedError('ERR_MERCHANT_NOT_FOUND', `No merchant with mid ${o.mid}.`);
      return listWebhookDeliveries(db, { failed: o.failed ?? false, mid: o.mid, limit: o.limit ?? 50 });
    },

    /** By a delivery id (uuid) or an event's webhook-id (`msg_…`), or every event since a time. */
    /** `onProgress` (with `since`): the events replayed so far and their total, after each chunk. */
    async replay(target: { id?: string | undefined; since?: string | undefined; mid?: string | undefined; failed?: boolean | undefined }, onProgress?: (done: number, total: number) => void) {
      let selector: ReplaySelector;
      if (target.id && EVENT_ID.test(target.id)) selector = { eventId: target.id };
      else if (target.id && UUID.test(target.id)) selector = { deliveryId: target.id };
      else if (target.id) throw new RescuedError('ERR_WEBHOOK_INVALID_INPUT', `"${target.id}" is neither a delivery id nor a webhook-id (msg_…).`);
      else if (target.since) selector = { since: parseSince(target.since, clock.now()), mid: target.mid, onlyDead: target.failed ?? false };
      else throw new RescuedError('ERR_WEBHOOK_INVALID_INPUT', 'Name a delivery or webhook-id, or give --since.');
      if (target.mid && !UUID.test(target.mid)) throw new RescuedError('ERR_MERCHANT_NOT_FOUND', `No merchant with mid ${target.mid}.`);
      const res = await replayWebhookEvents(db, selector, clock.now(), onProgress);
      if (target.id && res.events === 0) throw new RescuedError('ERR_WEBHOOK_NOT_FOUND', `No webhook delivery or event ${target.id}.`);
      if (target.id && res.replayed.length === 0) throw new RescuedError('ERR_WEBHOOK_NOT_FOUND', `The merchant of ${target.id} has no webhook URL.`);
      return res;
    },

    async enable(ref: string) {
      const done = UUID.test(ref) ? await enableWebhookEndpoint(db, ref) : undefined;
      if (!done) throw new RescuedError('ERR_WEBHOOK_NOT_FOUND', `No webhook endpoint or merchant ${ref}.`);
      return done;
    },
  };
}

export type WebhookOperations = ReturnType<typeof createWebhookOperations>;
