// The card writer shares one statement among concurrent writes, answers each with its own
// row (or the row its card already had), and does not let one bad row fail the others.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { key32 } from '../../helpers/keys.ts';
import { createCardWriter } from '../../../src/vault/card-writer.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import type { Db } from '../../../src/db/client.ts';
import type { NewCardRow } from '../../../src/db/queries/insert-cards.ts';

const row = (merchantId: string, fingerprint: string): NewCardRow => ({
  token: `tok_${randomBytes(24).toString('base64url')}`, merchantId, fingerprint, sealed: 'v1.k1.iv.body', keyId: 'k1',
  bin: '411111', last4: '1111', expMonth: 12, expYear: 2031, brand: 'VISA', test: true,
});

describe.each(DB_KINDS)('card writer on %s', (kind) => {
  let t: TestDatabase;
  let merchantId: string;
  let statements = 0;
  let db: Db;

  beforeAll(async () => {
    t = await freshDatabase(kind);
    const merchants = createMerchantService({ db: t.database.db, vault: keyRingFrom({ k1: key32() }, 'k1'), mode: 'sandbox' });
    merchantId = (await merchants.byMid((await merchants.add({ name: 'W' })).mid)).id;
    // Counts the statements the writer sends.
    db = new Proxy(t.database.db, {
      get: (target, prop, receiver) => (prop === 'execute' ? (...args: unknown[]) => (statements++, (target.execute as (...a: unknown[]) => unknown)(...args)) : Reflect.get(target, prop, receiver)),
    });
  });
  afterAll(() => t.dispose());

  it('writes concurrent calls in one statement, one row per card, each call with its card\'s row', async () => {
    const write = createCardWriter(db);
    const rows = Array.from({ length: 30 }, (_, i) => row(merchantId, `fp-${i % 6}`));
    statements = 0;
    const writes = await Promise.all(rows.map((r) => write(r)));
    expect(statements).toBe(1);
    expect(writes.filter((w) => w.inserted)).toHaveLength(6);
    for (const [i, w] of writes.entries()) {
      expect(w.row).toMatchObject({ merchantId, fingerprint: `fp-${i % 6}`, bin: '411111', expMonth: 12, test: true });
      expect(w.row.token).toBe(writes[i % 6]!.row.token);
      expect(w.row.createdAt).toBeInstanceOf(Date);
    }
    // Again later: every card is found, none inserted, with its stored values.
    const again = await Promise.all(rows.slice(0, 6).map((r) => write({ ...r, token: `tok_${randomUUID()}` })));
    expect(again.map((w) => [w.inserted, w.row.token, w.row.sealed, w.row.updatedAt instanceof Date])).toEqual(writes.slice(0, 6).map((w) => [false, w.row.token, 'v1.k1.iv.body', true]));
  });

  it('answers the good calls of a batch that holds a bad row', async () => {
    const write = createCardWriter(db);
    const bad = row(randomUUID(), 'fp-orphan'); // no such merchant: the foreign key refuses it
    const results = await Promise.allSettled([write(row(merchantId, 'fp-a')), write(bad), write(row(merchantId, 'fp-b'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
