// `vault rotate` through the service: every card, webhook secret and processor account's
// credentials end under the active
// key, every token still resolves, a second run changes nothing, and a value whose key is
// gone is counted, not looped over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { key32 } from '../../helpers/keys.ts';
import { randomPan } from '../../helpers/cards.ts';
import { keyRingFrom, open, type KeyRing } from '../../../src/vault/cipher.ts';
import { createVault } from '../../../src/vault/service.ts';
import { rotateVault } from '../../../src/vault/rotate.ts';
import { createMerchantService } from '../../../src/merchants/service.ts';
import { webhookSecretAad } from '../../../src/vault/cipher.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];
const CARDS_PER_MERCHANT = 8;

describe.each(DB_KINDS)('vault rotate on %s', (kind) => {
  let t: TestDatabase;
  const [k1, k2] = [key32(), key32()];
  const fingerprintKey = key32();
  const old = keyRingFrom({ k1 }, 'k1');
  const both = keyRingFrom({ k1, k2 }, 'k2');
  const onlyNew = keyRingFrom({ k2 }, 'k2');
  const cards: { merchantId: string; token: string; pan: string }[] = [];
  const secrets = new Map<string, string[]>();
  const mids: string[] = [];
  const stripeKey = 'sk_live_rotatemerotateme1234';

  const vaultOn = (ring: KeyRing) => createVault({ db: t.database.db, ring, fingerprintKey, mode: 'production' });
  const query = async (text: ReturnType<typeof sql>) => rowsOf(await t.database.db.execute(text));

  beforeAll(async () => {
    t = await freshDatabase(kind);
    const merchants = createMerchantService({ db: t.database.db, vault: old, mode: 'sandbox' });
    const vault = vaultOn(old);
    for (const name of ['A', 'B', 'C']) {
      const creds = await merchants.add({ name });
      mids.push(creds.mid);
      await createAccountService({ db: t.database.db, ring: old, mode: 'production' }).add(creds.mid, { type: 'stripe', label: `stripe-${name}`, credentials: { secretKey: stripeKey, rawCardData: true } });
      const merchantId = (await merchants.byMid(creds.mid)).id;
      // B has a previous secret still signing beside the current one.
      const rotated = name === 'B' ? (await merchants.rotateWebhookSecret(creds.mid)).webhookSecret : undefined;
      secrets.set(merchantId, rotated ? [rotated, creds.webhookSecret] : [creds.webhookSecret]);
      for (let i = 0; i < CARDS_PER_MERCHANT; i++) {
        const pan = randomPan();
        const { card } = await vault.tokenize(merchantId, { number: pan, month: '12', year: '2035', firstName: 'Ada', lastName: name });
        cards.push({ merchantId, token: card.token, pan });
      }
    }
  });
  afterAll(() => t.dispose());

  it('re-encrypts every card and webhook secret under the active key, in batches', async () => {
    const batches: string[] = [];
    const report = await rotateVault(t.database.db, both, { batchSize: 4, onBatch: (what) => batches.push(what) });
    expect(report).toEqual({ activeKeyId: 'k2', cards: { rotated: cards.length, failed: 0 }, webhookSecrets: { rotated: 3, failed: 0 }, processorCredentials: { rotated: 3, failed: 0 } });
    expect(batches.filter((b) => b === 'cards').length).toBe(Math.ceil(cards.length / 4));
    expect(await query(sql`select distinct key_id from cards`)).toEqual([{ key_id: 'k2' }]);
  });

  it('leaves every token resolving, with the old key gone from the ring', async () => {
    const vault = vaultOn(onlyNew);
    for (const c of cards) expect((await vault.reveal(c.merchantId, c.token))?.pan).toBe(c.pan);
    for (const r of await query(sql`select merchant_id, secret_sealed, previous_secret_sealed from webhook_endpoints`)) {
      const aad = webhookSecretAad(String(r.merchant_id));
      const opened = [r.secret_sealed, r.previous_secret_sealed].filter((s) => s !== null).map((s) => open(onlyNew, String(s), aad).toString());
      expect(opened).toEqual(secrets.get(String(r.merchant_id)));
    }
    expect(await query(sql`select distinct split_part(credentials_sealed, '.', 2) as k from processor_accounts`)).toEqual([{ k: 'k2' }]);
    for (const mid of mids) {
      const { credentials } = await createAccountService({ db: t.database.db, ring: onlyNew, mode: 'production' }).find(mid, `stripe-${mid === mids[0] ? 'A' : mid === mids[1] ? 'B' : 'C'}`);
      expect(credentials).toEqual({ secretKey: stripeKey, rawCardData: true });
    }
  });

  it('changes nothing on a second run', async () => {
    const before = await query(sql`select sealed from cards order by id`);
    expect(await rotateVault(t.database.db, both)).toEqual({ activeKeyId: 'k2', cards: { rotated: 0, failed: 0 }, webhookSecrets: { rotated: 0, failed: 0 }, processorCredentials: { rotated: 0, failed: 0 } });
    expect(await query(sql`select sealed from cards order by id`)).toEqual(before);
  });

  it('counts values it cannot open and finishes', async () => {
    const stranger = keyRingFrom({ k3: key32() }, 'k3');
    expect(await rotateVault(t.database.db, stranger, { batchSize: 5 })).toEqual({ activeKeyId: 'k3', cards: { rotated: 0, failed: cards.length }, webhookSecrets: { rotated: 0, failed: 3 }, processorCredentials: { rotated: 0, failed: 3 } });
    expect(await query(sql`select distinct key_id from cards`)).toEqual([{ key_id: 'k2' }]);
  });
});
