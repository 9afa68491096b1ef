// The per-endpoint cap under claims that race: several dispatchers (owners) claim the same
// endpoint at once, on their own connections, round after round, with seeded cap sizes and
// numbers of claimers. Whatever the interleaving, no more deliveries are leased at once than
// the cap. A claim statement that counted the others' leases in a snapshot taken before it
// locked the endpoint could miss a claim committed in between, and lease past the cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { key32 } from '../../helpers/keys.ts';
import { orderWithEvent, query } from '../../helpers/webhooks.ts';
import { seeded } from '../../helpers/seeded.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { claimWebhookDeliveries } from '../../../src/db/queries/claim-webhook-deliveries.ts';

const SEED = 2611;
const ROUNDS = 60;

describe.each(DB_KINDS)('webhook claims racing on one endpoint, on %s', (kind) => {
  let t: TestDatabase;
  let merchantId: string;

  beforeAll(async () => {
    t = await freshDatabase(kind);
    const merchants = createMerchantService({ db: t.database.db, vault: keyRingFrom({ v1: key32() }, 'v1'), mode: 'sandbox' });
    const creds = await merchants.add({ name: 'racing' });
    await merchants.setWebhook(creds.mid, 'http://127.0.0.1:9/hooks');
    merchantId = (await merchants.byMid(creds.mid)).id;
    for (let i = 0; i < 40; i++) await orderWithEvent(t.database.db, merchantId);
  });
  afterAll(async () => t.dispose());

  it(`never leases past the cap, over ${ROUNDS} seeded rounds of 2–6 claimers (seed ${SEED})`, async () => {
    const db = t.database.db;
    const random = seeded(SEED);
    for (let round = 0; round < ROUNDS; round++) {
      const cap = 1 + Math.floor(random() * 5);
      const claimers = 2 + Math.floor(random() * 5);
      // Some deliveries already leased by another owner at the round's start.
      const held = Math.floor(random() * (cap + 1));
      // (held ≤ cap: the slots left are cap − held.)
      await db.execute(sql`update webhook_deliveries set status = 'pending', lease_owner = null, lease_expires_at = null, next_attempt_at = now() - interval '1 second'`);
      if (held) {
        await db.execute(sql`update webhook_deliveries set status = 'delivering', lease_owner = 'earlier', lease_expires_at = now() + interval '1 hour'
          where id in (select id from webhook_deliveries order by id limit ${held})`);
      }
      const now = new Date();
      const got = await Promise.all(Array.from({ length: claimers }, (_, i) =>
        claimWebhookDeliveries(db, { owner: `r${round}-c${i}`, now, leaseUntil: new Date(now.getTime() + 60_000), limit: 100, perEndpoint: cap })));
      const claimed = got.reduce((n, g) => n + g.length, 0);
      const [leased] = await query(db, sql`select count(*)::int as n from webhook_deliveries where status = 'delivering' and lease_expires_at > now()`);
      const what = `round ${round}: cap ${cap}, ${claimers} claimers, ${held} held before`;
      // The first claimer to lock the endpoint takes every free slot; the others find none.
      expect(claimed, what).toBe(cap - held);
      expect(leased!.n, what).toBe(cap);
      // Every claim leaves work for the others, never duplicates it.
      expect(new Set(got.flat().map((d) => d.id)).size, what).toBe(claimed);
    }
  });
});
