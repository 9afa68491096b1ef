// The process's Prometheus metrics (prom-client), defined in one place so every stage counts
// into the same registry and GET /metrics serves them all. Labels are small fixed sets
// (routes as registered, statuses, outcomes): never a merchant-supplied value.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'rescued_' });

export const httpRequests = new Counter({
  name: 'rescued_http_requests_total',
  help: 'HTTP requests by route and status code',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'rescued_http_request_duration_seconds',
  help: 'HTTP request duration by route',
  labelNames: ['method', 'route'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

export const decisions = new Counter({
  name: 'rescued_decisions_total',
  help: 'evaluate decisions by kind (CIT, MIT) and status',
  labelNames: ['kind', 'status'] as const,
  registers: [registry],
});

export const attemptsTotal = new Counter({
  name: 'rescued_attempts_total',
  help: 'processor attempts by outcome (approved, declined, error, voided)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const queueDepth = new Gauge({
  name: 'rescued_attempt_queue_depth',
  help: 'attempts claimed and waiting in, or running through, the processor queue',
  registers: [registry],
});

export const webhookDeliveriesTotal = new Counter({
  name: 'rescued_webhook_deliveries_total',
  help: 'webhook delivery attempts by result (delivered, failed, dead, disabled)',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const batchEntries = new Counter({
  name: 'rescued_batch_entries_total',
  help: 'batch file entries by result (accepted, rejected)',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const authThrottled = new Counter({
  name: 'rescued_auth_throttled_total',
  help: 'authentications refused with 429 after too many failures, by endpoint (token, tokenize)',
  labelNames: ['endpoint'] as const,
  registers: [registry],
});

export const intakeRetries = new Counter({
  name: 'rescued_intake_retries_total',
  help: 'batch file ingests that failed and were scheduled to be tried again',
  registers: [registry],
});

export const intakeQuarantined = new Counter({
  name: 'rescued_intake_quarantined_total',
  help: 'batch files set aside in the quarantine because intake could not store them, by reason (refused, transient)',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const gatewayCalls = new Counter({
  name: 'rescued_gateway_calls_total',
  help: 'calls to merchants\' gateway accounts by type, operation and outcome (approved, declined, not_sent, unknown, rejected)',
  labelNames: ['type', 'operation', 'outcome'] as const,
  registers: [registry],
});

export const gatewayCircuitOpened = new Counter({
  name: 'rescued_gateway_circuit_opened_total',
  help: 'times a processor account was paused after repeated failed calls, by type',
  labelNames: ['type'] as const,
  registers: [registry],
});

export const purgedTotal = new Counter({
  name: 'rescued_purged_total',
  help: 'rows and files removed by the retention purge, by class (orders, attempts, webhookEvents, webhookDeliveries, batches, transmits, cards, intakeStarts, archiveFiles, outboundFiles, quarantineFiles)',
  labelNames: ['class'] as const,
  registers: [registry],
});

export const purgeRuns = new Counter({
  name: 'rescued_purge_runs_total',
  help: 'purge runs by result (done; skipped: another instance held the lock; failed)',
  labelNames: ['result'] as const,
  registers: [registry],
});

export const purgeLastDone = new Gauge({
  name: 'rescued_purge_last_done_timestamp_seconds',
  help: 'when this instance last finished a purge (alert when it is older than a day or two: retention is not being applied)',
  registers: [registry],
});
