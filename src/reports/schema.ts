// The recovery report's shape (docs/console.md "Recovery figures"): one schema, the type
// derived from it. The console, `rescued report` and GET /v1/reports/recovery all hand out
// this object, built by recoveryReport() alone, so the three never disagree.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Count = Type.Integer({ minimum: 0 });
const Day = Type.String({ format: 'date', description: 'a UTC calendar day' });

export const MoneySchema = Type.Object({
  currency: Type.String({ description: 'ISO 4217' }),
  recovered: Type.Integer({ description: 'minor units charged by recovered orders' }),
  refunded: Type.Integer({ description: 'minor units refunded since, out of `recovered`' }),
  lost: Type.Integer({ description: 'minor units of the lost orders' }),
});

const figureProps = {
  orders: Type.Integer({ minimum: 0, description: 'orders created in the window' }),
  open: Type.Integer({ minimum: 0, description: 'not final yet (SUBMITTED, PENDING, PROCESSING, CHALLENGE): left out of the rate' }),
  recovered: Type.Integer({ minimum: 0, description: 'ended APPROVED: every order began as a decline' }),
  lost: Type.Integer({ minimum: 0, description: 'ended DECLINED or EXPIRED' }),
  cancelled: Type.Integer({ minimum: 0, description: 'cancelled by the merchant: left out of the rate' }),
  recoveryRate: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'recovered / (recovered + lost); null while nothing is decided' })),
  amounts: Type.Array(MoneySchema, { description: 'by currency, largest recovered first' }),
};

export const FiguresSchema = Type.Object(figureProps);

export const ReasonRowSchema = Type.Object({ reason: Type.String({ description: 'canonical reason of the original decline code' }), class: Type.String({ description: 'hard, soft or data' }), ...figureProps });
export const BrandRowSchema = Type.Object({ brand: Type.String({ description: 'card brand as stored, `unknown` when none' }), ...figureProps });
export const MerchantRowSchema = Type.Object({ mid: Type.String({ format: 'uuid' }), name: Type.String(), ...figureProps });

export const CauseRowSchema = Type.Object({
  cause: Type.Union([Type.Literal('retry'), Type.Literal('merchant_update'), Type.Literal('account_updater'), Type.Literal('other_card')], { description: 'what recovered the orders: a retry of the same card, the merchant\'s updated card, the gateway\'s account updater, the payer\'s other card' }),
  recovered: Type.Integer({ minimum: 0, description: 'orders recovered so' }),
  amounts: Type.Array(Type.Object({ currency: Type.String(), recovered: Type.Integer({ description: 'minor units' }), refunded: Type.Integer({ description: 'minor units refunded since' }) }), { description: 'by currency, largest first' }),
});

export const DayRowSchema = Type.Object({
  day: Day,
  done: Type.Integer({ minimum: 0, description: 'attempts started that day (any outcome)' }),
  approved: Count,
  declined: Count,
  planned: Type.Integer({ minimum: 0, description: 'PENDING orders whose next attempt falls that day (overdue ones count today)' }),
});

export const QueueSchema = Type.Object({
  depth: Type.Integer({ minimum: 0, description: 'MIT orders the engine still works on: toPlan + dueNow + scheduled + parked + awaitingCard + inFlight' }),
  toPlan: Type.Integer({ minimum: 0, description: 'SUBMITTED: the first look is due' }),
  dueNow: Type.Integer({ minimum: 0, description: 'PENDING whose next attempt is due' }),
  scheduled: Type.Integer({ minimum: 0, description: 'PENDING whose next attempt is later' }),
  parked: Type.Integer({ minimum: 0, description: 'PENDING without a next attempt (an outcome to reconcile)' }),
  awaitingCard: Type.Integer({ minimum: 0, description: 'PENDING waiting for an updated card (docs/engine.md "Card updates")' }),
  inFlight: Type.Integer({ minimum: 0, description: 'PROCESSING' }),
  awaitingChallenge: Type.Integer({ minimum: 0, description: 'CIT orders in CHALLENGE' }),
  oldestDueAt: Nullable(Type.String({ format: 'date-time' })),
});

export const WebhookBacklogSchema = Type.Object({
  pending: Type.Integer({ minimum: 0, description: 'deliveries waiting for their next try' }),
  dueNow: Count,
  delivering: Count,
  dead: Type.Integer({ minimum: 0, description: 'dead letters: tries exhausted, replayable with `rescued webhooks replay`' }),
  disabledEndpoints: Type.Integer({ minimum: 0, description: 'endpoints disabled by a 410; their deliveries wait' }),
  oldestPendingAt: Nullable(Type.String({ format: 'date-time' })),
});

export const BatchProgressSchema = Type.Object({
  batchId: Type.String({ format: 'uuid' }),
  phase: Type.Union([Type.Literal('ingesting'), Type.Literal('rescuing')], { description: 'ingesting: the file is being read (a small file\'s orders appear at its commit, a large file\'s chunk by chunk); rescuing: its orders are being worked on' }),
  fileName: Type.String(),
  mid: Type.String({ format: 'uuid' }),
  receivedAt: Type.String({ format: 'date-time' }),
  entries: Count,
  accepted: Count,
  rejected: Count,
  final: Type.Integer({ minimum: 0, description: 'accepted orders in a final state' }),
  approved: Count,
  expired: Count,
  cancelled: Count,
  progress: Type.Number({ minimum: 0, maximum: 1, description: 'ingesting: entries decided / entries; rescuing: final / accepted' }),
});

export const LearnedHourSchema = Type.Object({
  hour: Type.Integer({ minimum: 0, maximum: 23, description: "the payer's local hour" }),
  attempts: Count,
  approvals: Count,
});

export const LearnedFamilySchema = Type.Object({
  family: Type.String({ description: 'canonical reason of the original decline' }),
  attempts: Type.Integer({ minimum: 0, description: 'retries of orders with this original decline, counted in the learned table' }),
  approvals: Count,
  best: Type.Array(LearnedHourSchema, { description: 'local hours with the highest approval rate (at least minAttempts attempts), best first, at most 3' }),
  worst: Type.Array(LearnedHourSchema, { description: 'local hours with the lowest approval rate (same floor), worst first, at most 3' }),
});

export const LearnedTimingSchema = Type.Object({
  cells: Type.Integer({ minimum: 0, description: 'rows of the learned table in scope (bounded per merchant, docs/engine.md "Learned timing")' }),
  attempts: Count,
  approvals: Count,
  minAttempts: Type.Integer({ minimum: 1, description: 'attempts an hour needs before it is ranked' }),
  families: Type.Array(LearnedFamilySchema, { description: 'most attempts first' }),
});

export const RecoveryReportSchema = Type.Object({
  generatedAt: Type.String({ format: 'date-time' }),
  mid: Nullable(Type.String({ format: 'uuid', description: 'the merchant the figures are limited to; null: all' })),
  since: Nullable(Type.String({ format: 'date-time', description: 'orders created and attempts started from then; null: every order' })),
  ordersByState: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'every status, zero included' }),
  overall: FiguresSchema,
  byReason: Type.Array(ReasonRowSchema),
  byBrand: Type.Array(BrandRowSchema),
  byMerchant: Type.Array(MerchantRowSchema),
  byRecoveryCause: Type.Array(CauseRowSchema, { description: 'every cause, zero included, in this order: retry, merchant_update, account_updater, other_card' }),
  attemptsPerDay: Type.Object({
    from: Day,
    to: Day,
    days: Type.Array(DayRowSchema),
    plannedLater: Type.Integer({ minimum: 0, description: 'planned attempts after `to`' }),
  }),
  queue: QueueSchema,
  webhooks: WebhookBacklogSchema,
  batchesInProgress: Type.Array(BatchProgressSchema, { description: 'files being ingested, then accepted batches whose results file is not written yet; oldest first, at most 50 of each' }),
  learnedTiming: LearnedTimingSchema,
});

export type Money = Static<typeof MoneySchema>;
export type Figures = Static<typeof FiguresSchema>;
export type ReasonRow = Static<typeof ReasonRowSchema>;
export type BrandRow = Static<typeof BrandRowSchema>;
export type MerchantRow = Static<typeof MerchantRowSchema>;
export type DayRow = Static<typeof DayRowSchema>;
export type CauseRow = Static<typeof CauseRowSchema>;
export type Queue = Static<typeof QueueSchema>;
export type WebhookBacklog = Static<typeof WebhookBacklogSchema>;
export type BatchProgress = Static<typeof BatchProgressSchema>;
export type RecoveryReport = Static<typeof RecoveryReportSchema>;
export type LearnedTiming = Static<typeof LearnedTimingSchema>;
