// The sandbox processor: deterministic answers for the whitelisted test cards, so every path
// of the engine can be seen end to end without a real acquirer. Like a real processor it
// honours idempotency keys: the first answer to a key is stored (processor_calls, committed
// before the caller sees it) and a repeated key gets that answer again, marked `replayed`,
// whatever the clock says by then. Calls that arrive together are answered as one group
// (group commit): one read of their references' earlier calls beside one read of the cards
// not seen yet, one insert of the new answers, then every caller gets its answer. One call at a
// time, these were four statements and a decryption per call. The first call of an order can
// also be answered without storing (`local`): CIT evaluate stores that answer in the statement
// that writes the order, so a charge and its order are committed together or not at all.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../db/client.ts';
import { callsOfReferences, findProcessorCalls, insertProcessorCalls, type NewProcessorCall, type ProcessorCallRow } from '../db/queries/processor-calls.ts';
import { systemClock, type Clock } from '../clock.ts';
import { grouped } from '../group.ts';
import type { Logger } from '../log.ts';
import { sandboxTestCards, type TestCard, type TestCardList } from '../vault/test-cards.ts';
import { testCardResolver, type CardRef, type CardVault } from './sandbox-cards.ts';
import { decideAuthorize, decideRefund, decideVoid, NOT_A_TEST_CARD, sandboxRef, type PriorCall, type StoredAnswer } from './sandbox-outcomes.ts';
import type { AuthorizeRequest, LocalAnswer, Processor, ProcessorResponse, RefundRequest } from './types.ts';

export interface SandboxDeps {
  db: Db;
  /** Only `reveal` (or `revealMany`) is used: the number picks the test card and never leaves this module. */
  vault: CardVault;
  clock?: Clock;
  /** Added to every call (not to replays): makes queueing and timeouts visible in tests. */
  latencyMs?: number;
  testCards?: TestCardList;
  log?: Logger;
}

type Operation = 'authorize' | 'refund' | 'void';

type Answer = Omit<StoredAnswer, 'processorRef'>;

/** One call waiting for its group: `decide` is pure, given the earlier calls, the clock and the card. */
interface Call {
  op: Operation;
  key: string;
  reference: string;
  card?: CardRef;
  decide: (prior: PriorCall[], now: Date, card: TestCard | undefined) => Answer;
}

interface Stored {
  operation: Operation;
  key: string;
  answer: StoredAnswer;
}

const toPrior = (r: ProcessorCallRow): PriorCall => ({ operation: r.operation, approved: r.approved, at: r.createdAt, answer: r.response as StoredAnswer });
const toStored = (r: ProcessorCallRow): Stored => ({ operation: r.operation, key: r.idempotencyKey, answer: r.response as StoredAnswer });

function respond(answer: StoredAnswer, replayed: boolean): ProcessorResponse {
  const { amount: _a, currency: _c, of: _o, ...response } = answer;
  return { ...response, replayed };
}

export function createSandboxProcessor(deps: SandboxDeps): Processor {
  const { db } = deps;
  const clock = deps.clock ?? systemClock;
  const latencyMs = deps.latencyMs ?? 0;
  const cardsOf = testCardResolver(deps.vault, deps.testCards ?? sandboxTestCards());
  const log = deps.log?.child({ component: 'processor', processor: 'sandbox' });

  function replay(s: Stored, op: Operation): ProcessorResponse | Error {
    // A key reused for another operation is a caller bug; answering it would hide one.
    if (s.operation !== op) return new Error(`idempotency key ${s.key} was used for ${s.operation}, not ${op}`);
    log?.debug({ op, idempotencyKey: s.key }, 'sandbox replayed a stored answer');
    return respond(s.answer, true);
  }

  /**
   * Answers one group: a known key gets its stored answer; a new one is decided over its
   * order's earlier calls (including those decided earlier in the group), and all new answers
   * are stored in one insert before anyone gets theirs. Two groups racing on one new key both
   * decide; the insert lets one win and the other returns the winner's answer.
   */
  async function answerGroup(calls: Call[]): Promise<Array<ProcessorResponse | Error>> {
    // The earlier calls and the cards are read at once (two connections of the pool): a card
    // read for a key that turns out to be a replay is wasted, and rare.
    const withCard = calls.filter((c) => c.card);
    const [rows, cards] = await Promise.all([callsOfReferences(db, [...new Set(calls.map((c) => c.reference))]), cardsOf(withCard.map((c) => c.card!))]);
    const cardOf = new Map(withCard.map((c, i) => [c.key, cards[i]]));
    const byKey = new Map(rows.map((r) => [r.idempotencyKey, toStored(r)]));
    const prior = new Map<string, PriorCall[]>();
    for (const r of rows) prior.set(r.reference, [...(prior.get(r.reference) ?? []), toPrior(r)]);
    if (latencyMs > 0 && calls.some((c) => !byKey.has(c.key))) await sleep(latencyMs);
    const now = clock.now();
    const out: Array<ProcessorResponse | Error> = [];
    const inserts: NewProcessorCall[] = [];
    for (const c of calls) {
      const seen = byKey.get(c.key);
      if (seen) {
        out.push(replay(seen, c.op));
        continue;
      }
      const history = prior.get(c.reference) ?? [];
      const answer: StoredAnswer = { ...c.decide(history, now, cardOf.get(c.key)), processorRef: sandboxRef(c.key) };
      byKey.set(c.key, { operation: c.op, key: c.key, answer });
      prior.set(c.reference, [...history, { operation: c.op, approved: answer.approved, at: now, answer }]);
      inserts.push({ idempotencyKey: c.key, operation: c.op, reference: c.reference, approved: answer.approved, response: answer, createdAt: now });
      out.push(respond(answer, false));
      log?.debug({ op: c.op, idempotencyKey: c.key, reference: c.reference, approved: answer.approved, responseCode: answer.responseCode }, 'sandbox answered');
    }
    const stored = await insertProcessorCalls(db, inserts);
    const lost = inserts.filter((r) => !stored.has(r.idempotencyKey)).map((r) => r.idempotencyKey);
    if (lost.length === 0) return out;
    const winners = new Map((await findProcessorCalls(db, lost)).map((r) => [r.idempotencyKey, toStored(r)]));
    return calls.map((c, i) => {
      const w = winners.get(c.key);
      return w ? replay(w, c.op) : out[i]!;
    });
  }

  const group = grouped(answerGroup, { maxSize: 200, maxInFlight: 2 });
  async function call(c: Call): Promise<ProcessorResponse> {
    const r = await group(c);
    if (r instanceof Error) throw r;
    return r;
  }

  function decideCharge(request: AuthorizeRequest): Call['decide'] {
    return (prior, now, card) => {
      if (!card) return NOT_A_TEST_CARD;
      const answer = decideAuthorize(card, request, now, prior);
      return answer.approved ? { ...answer, amount: request.amount, currency: request.currency } : answer;
    };
  }

  async function authorize(request: AuthorizeRequest): Promise<ProcessorResponse> {
    return call({ op: 'authorize', key: request.idempotencyKey, reference: request.reference, card: { merchantId: request.merchantId, cardToken: request.cardToken }, decide: decideCharge(request) });
  }

  /** The answer to the first call of a reference, as `authorize` would give it, left for the caller to store. */
  async function authorizeFirst(request: AuthorizeRequest): Promise<LocalAnswer> {
    const [card] = await cardsOf([{ merchantId: request.merchantId, cardToken: request.cardToken }]);
    if (latencyMs > 0) await sleep(latencyMs);
    const now = clock.now();
    const answer: StoredAnswer = { ...decideCharge(request)([], now, card), processorRef: sandboxRef(request.idempotencyKey) };
    log?.debug({ op: 'authorize', idempotencyKey: request.idempotencyKey, reference: request.reference, approved: answer.approved, responseCode: answer.responseCode }, 'sandbox answered, for the caller to store');
    const record = { idempotencyKey: request.idempotencyKey, operation: 'authorize' as const, reference: request.reference, approved: answer.approved, response: answer, createdAt: now };
    return { response: respond(answer, false), record };
  }

  async function refund(request: RefundRequest): Promise<ProcessorResponse> {
    return call({
      op: 'refund', key: request.idempotencyKey, reference: request.reference,
      decide: (prior) => ({ ...decideRefund(request.processorRef, request.amount, prior), of: request.processorRef, amount: request.amount, currency: request.currency }),
    });
  }

  async function voidCharge(request: Omit<RefundRequest, 'amount'>): Promise<ProcessorResponse> {
    return call({ op: 'void', key: request.idempotencyKey, reference: request.reference, decide: (prior) => ({ ...decideVoid(request.processorRef, prior), of: request.processorRef }) });
  }

  const sandbox: Processor = { name: 'sandbox', authorize, refund, void: voidCharge };
  sandbox.local = { of: sandbox, authorizeFirst };
  return sandbox;
}
