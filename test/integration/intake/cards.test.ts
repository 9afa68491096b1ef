// Intake with the real vault in sandbox mode: tokens must be the merchant's, full numbers are
// tokenized, and the sandbox card that requires a payer email is refused without it — for a
// token as for a full number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { expandRejected, intakeFixture, type AckRow, type IntakeFixture } from '../../helpers/intake.ts';
import { key32 } from '../../helpers/keys.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import { vaultCardResolver } from '../../../src/intake/cards.ts';
import { createVault } from '../../../src/vault/service.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { orders } from '../../../src/db/schema.ts';
import type { Db } from '../../../src/db/client.ts';

const EMAIL_CARD = '4000000000000010';
const REQUIRED_EMAIL = 'approved.payer@sandbox.rescued.test';

// On PostgreSQL also with the entries parsed in the intake worker: a chunk holding a full
// number comes back as entries, one of tokens as COPY text (store-encoded.ts).
const CASES = [...DB_KINDS.map((kind) => ({ kind, worker: false })), ...(DB_KINDS.includes('postgres') ? [{ kind: 'postgres' as const, worker: true }] : [])];

describe.each(CASES)('batch intake with the vault on $kind (intake worker: $worker)', ({ kind, worker }) => {
  let f: IntakeFixture;
  const ring = keyRingFrom({ v1: key32() }, 'v1');
  const fingerprintKey = key32();
  const testCards = sandboxTestCards();
  const vaultOn = (db: Db) => createVault({ db, ring, fingerprintKey, mode: 'sandbox', testCards });

  beforeAll(async () => {
    f = await intakeFixture(kind, vaultCardResolver((tx) => vaultOn(tx as unknown as Db), testCards));
    if (worker) f.deps.workerMinBytes = 0;
  });
  afterAll(() => f.close());

  const tokenOf = async (number: string) =>
    (await vaultOn(f.tdb.database.db).tokenize(f.merchant.merchantId, { number, month: '12', year: '2030', firstName: 'Jane', lastName: 'Doe' } as never)).card.token;

  /** `pan` gives the BIN and last four the entry must carry, whether it sends the number or a token. */
  function entry(seq: number, cardNumber: string, email: string, token: boolean, pan = cardNumber) {
    const base = (JSON.parse(readFileSync(new URL('../../../samples/batches/valid.json', import.meta.url), 'utf8')) as { requests: Array<Record<string, unknown>> }).requests[0]!;
    const pm = { ...(base.paymentMethod as object), cardNumber, token, cardBinNumber: pan.slice(0, 6), cardLast4Digits: pan.slice(-4) };
    return { ...base, sequenceNumber: seq, orderId: `ORD-cards-${kind}-${seq}`, idempotencyKey: randomUUID(), payer: { ...(base.payer as object), email }, paymentMethod: pm };
  }

  it('refuses the email-bound test card without its email (token or full number), accepts it with it', async () => {
    const emailToken = await tokenOf(EMAIL_CARD);
    const otherToken = await tokenOf('4111111111111111');
    const requests = [
      entry(1, emailToken, 'someone@example.com', true, EMAIL_CARD),
      entry(2, emailToken, REQUIRED_EMAIL.toUpperCase(), true, EMAIL_CARD),
      entry(3, EMAIL_CARD, 'someone@example.com', false),
      entry(4, otherToken, 'someone@example.com', true, '4111111111111111'),
      entry(5, 'tok_not_a_card_of_this_merchant', 'someone@example.com', true, '4111111111111111'),
    ];
    const text = JSON.stringify({ mid: '00000000-0000-4000-8000-000000000000', authorizationToken: 'Bearer REPLACE_WITH_ACCESS_TOKEN', expiryDateUtc: '2026-12-31T00:00:00Z', requests });
    const res = await ingestFile(f.deps, f.drop('cards.json', text));
    expect(res).toMatchObject({ status: 'partially_accepted', counts: { entries: 5, accepted: 2, rejected: 3 } });
    const ack = JSON.parse(readFileSync(res.ackPath, 'utf8')) as { rejected: AckRow[] };
    // The second entry refused for the same reason names the first instead of repeating it.
    expect(ack.rejected[1]).toEqual({ sequenceNumber: 3, orderId: expect.any(String), sameErrorsAs: 1 });
    expect(expandRejected(ack.rejected).map((r) => [r.sequenceNumber, r.errors[0]!.code, r.errors[0]!.field])).toEqual([
      [1, 'ERR_VAULT_PAYER_EMAIL_REQUIRED', 'payer.email'],
      [3, 'ERR_VAULT_PAYER_EMAIL_REQUIRED', 'payer.email'],
      [5, 'ERR_VAULT_TOKEN_UNKNOWN', 'paymentMethod.cardNumber'],
    ]);
    const stored = await f.tdb.database.db.select().from(orders).where(eq(orders.batchId, res.batchId!)).orderBy(orders.sequenceNumber);
    expect(stored.map((o) => [o.sequenceNumber, o.cardToken])).toEqual([
      [2, emailToken],
      [4, otherToken],
    ]);
    // The full number never reaches the ack.
    expect(readFileSync(res.ackPath, 'utf8')).not.toContain(EMAIL_CARD);
  });
});
