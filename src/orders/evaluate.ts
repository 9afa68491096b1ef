// POST /v1/evaluate (DESIGN.md §3): a CIT is decided in real time — hard decline → DECLINED,
// data decline → CHALLENGE, soft decline → one attempt now → APPROVED or DECLINED (or
// CHALLENGE when the issuer asks for it); an MIT is stored SUBMITTED for the engine.
// Idempotency per DESIGN.md §2 wraps the whole call.
//
// Round trips (docs/performance.md, "HTTP API: CIT evaluate"). A decision that does not leave
// rescued — hard, data, MIT, and a charge by the sandbox, whose record of it is a row in our own
// database — is made first and stored with its idempotency record in one statement, grouped
// with the requests arriving meanwhile: one round trip alone, a fraction of one under load.
// Nothing was promised before that commit, so nothing needs a claim first: a crash before it
// leaves no record, no order and no charge. A charge through a gateway leaves rescued and must
// be claimed durably first: claim, call, write — two grouped statements. Every other case goes
// one request at a time through the path that claims first (evaluate-one.ts).
import { validateEvaluate, type EvaluateRequest } from '../domain/index.ts';
import { RescuedError } from '../errors.ts';
import { localAnswersOf } from '../processors/types.ts';
import { checkSandboxPayerEmail } from '../vault/test-cards.ts';
import { attemptsTotal, decisions } from '../metrics.ts';
import type { LocalAnswer } from '../processors/types.ts';
import { attemptOf } from './attempt.ts';
import type { OrderDeps } from './deps.ts';
import type { Owner } from './own-ids.ts';
import { evaluateGroups } from './evaluate-groups.ts';
import { answerHeld, answerOf, claimTimes, duplicateOrderId, type Decision, type Edge, type EvaluateAnswer, type Evaluating } from './evaluate-answer.ts';
import { authorizeRequestOf, decideAndStore, decideWithoutProcessor, evaluateOneByOne } from './evaluate-one.ts';

export type { EvaluateAnswer } from './evaluate-answer.ts';

function validated(body: unknown, deps: OrderDeps): { req: EvaluateRequest; warnings: unknown[] } {
  const skew = deps.settings.clockSkewSeconds;
  const v = validateEvaluate(body, { mode: deps.mode, now: deps.clock.now(), ...(skew !== undefined ? { clockSkewMs: skew * 1000 } : {}) });
  if (!v.ok) throw new RescuedError('ERR_MODEL_INVALID', undefined, v.errors);
  if (v.value.isDeclined !== true) throw new RescuedError('ERR_API_NOT_DECLINED', undefined, [{ field: 'isDeclined', code: 'ERR_API_NOT_DECLINED', message: 'must be true: only declined transactions can be rescued' }]);
  return { req: v.value, warnings: v.warnings };
}

export async function evaluate(deps: OrderDeps, owner: Owner, body: unknown, requestHash: string): Promise<EvaluateAnswer> {
  const { req, warnings } = validated(body, deps);
  await deps.ownIds(owner, { mid: req.mid, siteId: req.siteId });
  const e: Evaluating = { deps, merchantId: owner.merchantId, req, warnings, key: req.idempotencyKey.toLowerCase(), requestHash, now: deps.clock.now() };
  // A card or payer refused is answered by the claiming path, after the key: a replay still replays.
  const edge = await deps.vault.tokenizeAtEdge(e.merchantId, req.paymentMethod).catch(() => undefined);
  if (!edge || checkSandboxPayerEmail(edge.testCard, req.payer.email)) return evaluateOneByOne(e);
  const d = req.isMIT ? undefined : decideWithoutProcessor(req);
  if (d !== 'soft') return storeDecided(e, edge, d, undefined);
  const local = localAnswersOf(deps.processor);
  if (!local) return deps.processor ? evaluateClaimed(e, edge) : evaluateOneByOne(e);
  const request = authorizeRequestOf(e, edge.card.token);
  const startedAt = deps.clock.now();
  const t0 = performance.now();
  let answer: LocalAnswer | undefined;
  try {
    answer = await local.authorizeFirst(request);
  } catch {
    return evaluateOneByOne(e);
  }
  if (!answer) return evaluateClaimed(e, edge);
  const a = attemptOf(deps, request, answer.response, { attemptNo: 1, planReason: 'cit_realtime', cardBrand: req.paymentMethod.cardBrand, startedAt, latencyMs: Math.round(performance.now() - t0) });
  return storeDecided(e, edge, { ...a, attempt: a.row }, answer.record);
}

/** One grouped statement: the answered key, the order, its attempt and the sandbox's record of the charge. */
async function storeDecided(e: Evaluating, edge: Edge, d: Decision | undefined, charge: LocalAnswer['record'] | undefined): Promise<EvaluateAnswer> {
  const { response, order } = answerOf(e, edge, d);
  let stored;
  try {
    stored = await evaluateGroups(e.deps.db).store({
      order, attempt: d?.attempt, processorCall: charge, route: 'evaluate', requestHash: e.requestHash, ...claimTimes(e), statusCode: 200, response,
    });
  } catch (err) {
    // Another writer raced the group (or the database failed): nothing of it was kept.
    e.deps.log.debug({ err }, 'grouped evaluate not stored: one request at a time');
    return evaluateOneByOne(e);
  }
  switch (stored.kind) {
    case 'stored':
      decisions.inc({ kind: order.kind, status: order.status });
      if (d?.attempt) attemptsTotal.inc({ outcome: d.attempt.status });
      return { statusCode: 200, body: response, replayed: false };
    case 'held':
      return answerHeld(stored.held, e.requestHash);
    case 'order_id_taken':
      throw duplicateOrderId();
    default:
      return evaluateOneByOne(e);
  }
}

/** A charge through a gateway: a durable claim, the call, then the write, each grouped. */
async function evaluateClaimed(e: Evaluating, edge: Edge): Promise<EvaluateAnswer> {
  const groups = evaluateGroups(e.deps.db);
  const c = await groups.claim({ merchantId: e.merchantId, key: e.key, route: 'evaluate', requestHash: e.requestHash, now: e.now, orderId: e.req.orderId, ...claimTimes(e) });
  if (c.kind === 'held') return answerHeld(c.held, e.requestHash);
  if (c.kind === 'order_id_taken') throw duplicateOrderId();
  if (c.kind === 'again') return evaluateOneByOne(e);
  return decideAndStore(e, edge, (w) => groups.write(w));
}
