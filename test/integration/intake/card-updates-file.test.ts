// The batch form of a card update (docs/sftp-and-batches.md "Card-update files"), on each
// database: a *.updates.json file names orders by orderSessionKey or orderId and gives each
// its new card; each entry is applied as POST …/payment-method applies it, the ack answers
// every entry, and the file (which may hold card numbers) is deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../../helpers/api.ts';
import { ingestUpdates, type ApplyCardUpdate } from '../../../src/intake/updates.ts';
import { attachPaymentMethod } from '../../../src/orders/payment-method.ts';
import { orders } from '../../../src/db/schema.ts';
import type { IntakeDeps } from '../../../src/intake/types.ts';

describe.each(DB_KINDS)('card-update files on %s', (kind) => {
  let f: ApiFixture;
  let dir: string;
  beforeAll(async () => {
    f = await apiFixture(kind);
    dir = mkdtempSync(join(tmpdir(), 'rescued-updates-'));
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('applies each entry on its own, answers them in the ack and deletes the file', async () => {
    const tok = await f.a.tokenOf('4000000000000069');
    const open = async () => {
      const res = await f.post('/v1/evaluate', evaluateBody(tok, { mit: true, tx: { responseCode: '54', responseCodeSource: 'iso8583' } }));
      expect(res.statusCode, res.body).toBe(200);
      return res.json().orderSessionKey as string;
    };
    const [byKey, byId] = [await open(), await open()];
    const orderIdOf = async (key: string) => (await f.t.tdb.database.db.select().from(orders).where(eq(orders.id, key)))[0]!.orderId;
    const newTok = await f.a.tokenOf('4111111111111111');
    const doc = {
      mid: f.a.mid, authorizationToken: f.a.bearer.slice('Bearer '.length),
      updates: [
        { orderSessionKey: byKey, token: newTok },
        { orderId: await orderIdOf(byId), payment_method: { credit_card: { first_name: 'Jane', last_name: 'Doe', number: '5555555555554444', month: '12', year: '2031' } } },
        { orderId: 'no-such-order', token: newTok },
        { orderSessionKey: byKey, orderId: 'both', token: newTok },
        { orderSessionKey: byKey, payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111112', month: '12', year: '2031' } } },
      ],
    };
    const path = join(dir, 'cards.updates.json');
    writeFileSync(path, JSON.stringify(doc));
    const deps = { db: f.t.tdb.database.db, tokens: f.t.tokens, cards: { resolve: async () => [] }, mode: 'sandbox', log: silentLog, archiveDir: join(dir, 'archive') } as unknown as IntakeDeps;
    const apply: ApplyCardUpdate = async (merchantId, ref, body) => {
      const o = await attachPaymentMethod(f.t.api.orders, f.t.vault, merchantId, ref, body);
      return { orderSessionKey: o.id, status: o.status };
    };
    const r = await ingestUpdates(deps, { merchantId: f.a.merchantId, mid: f.a.mid, path, name: 'cards.updates.json', outboundDir: dir }, apply);
    expect(r).toMatchObject({ updated: 2, rejected: 3 });
    expect(existsSync(path)).toBe(false);
    const ack = readFileSync(r.ackPath, 'utf8');
    expect(ack).not.toContain('5555555555554444');
    expect(ack).not.toContain('4111111111111112');
    expect(JSON.parse(ack)).toMatchObject({
      kind: 'card_updates', status: 'partially_accepted', counts: { entries: 5, updated: 2, rejected: 3 },
      updates: [
        { position: 1, status: 'updated', orderSessionKey: byKey },
        { position: 2, status: 'updated', orderSessionKey: byId },
        { position: 3, status: 'rejected', code: 'ERR_HTTP_NOT_FOUND' },
        { position: 4, status: 'rejected', code: 'ERR_MODEL_REQUIRED' },
        { position: 5, status: 'rejected', code: 'ERR_VAULT_NOT_TEST_CARD' },
      ],
    });
    const after = await f.get(`/v1/orders/${byId}`);
    expect(after.json()).toMatchObject({ cardUpdates: [{ source: 'merchant', last4: '4444' }], nextAttempt: { reason: 'card_updated' } });
  });

  it('refuses a file whose token is not the merchant\'s, applying nothing', async () => {
    const path = join(dir, 'bad.updates.json');
    writeFileSync(path, JSON.stringify({ mid: f.a.mid, authorizationToken: f.b.bearer.slice('Bearer '.length), updates: [{ orderId: 'x', token: 'y' }] }));
    const deps = { db: f.t.tdb.database.db, tokens: f.t.tokens, log: silentLog } as unknown as IntakeDeps;
    const r = await ingestUpdates(deps, { merchantId: f.a.merchantId, mid: f.a.mid, path, name: 'bad.updates.json', outboundDir: dir }, () => Promise.reject(new Error('must not run')));
    expect(JSON.parse(readFileSync(r.ackPath, 'utf8'))).toMatchObject({ status: 'rejected', counts: { entries: 0 }, error: { code: 'ERR_INTAKE_HEADER_INVALID' } });
  });
});
