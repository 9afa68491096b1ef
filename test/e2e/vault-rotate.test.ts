// `rescued vault rotate` as a real process: cards tokenized under key k1, the key ring
// extended with k2 (active), the command run twice (the second does nothing), then the
// data opened with k2 alone: every token resolves, rows carry k2, webhook secrets open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';



import { sql } from 'drizzle-orm';
import { DB_KINDS, createServerDatabase, silentLog } from '../helpers/db.ts';
import { cleanEnv, seededDataDir } from '../helpers/daemon.ts';
import { expectNoCardData } from '../helpers/card-sweep.ts';
import { runCli } from '../helpers/cli.ts';
import { key32 } from '../helpers/keys.ts';
import { loadConfig } from '../../src/config/index.ts';
import { openCore, type Core } from '../../src/core.ts';
import { open } from '../../src/vault/cipher.ts';
import { webhookSecretAad } from '../../src/vault/cipher.ts';
import { sandboxTestCards } from '../../src/vault/test-cards.ts';

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Record<string, unknown>[];

describe.each(DB_KINDS)('rescued vault rotate on %s', (kind) => {
  const [k1, k2] = [key32(), key32()];
  const base: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: seededDataDir('rescued-rotate-'), RESCUED_VAULT_FINGERPRINT_KEY: key32() };
  const ring = (keys: Record<string, string>, active: string) => ({ ...base, RESCUED_VAULT_KEYS: JSON.stringify(keys), RESCUED_VAULT_ACTIVE_KEY_ID: active });
  const cards: { merchantId: string; token: string; pan: string }[] = [];
  const secrets = new Map<string, string>();
  let drop: (() => Promise<void>) | undefined;

  async function withCore<T>(env: NodeJS.ProcessEnv, body: (core: Core) => Promise<T>): Promise<T> {
    const core = await openCore(loadConfig({ env: cleanEnv(env) }), silentLog);
    try {
      return await body(core);
    } finally {
      await core.database.close();
    }
  }

  beforeAll(async () => {
    if (kind === 'postgres') {
      const server = await createServerDatabase({ migrated: true });
      base.DATABASE_URL = server.url;
      drop = server.drop;
    }
    await withCore(ring({ k1 }, 'k1'), async (core) => {
      for (const name of ['North', 'South']) {
        const creds = await core.merchants.add({ name });
        const merchantId = (await core.merchants.byMid(creds.mid)).id;
        secrets.set(merchantId, creds.webhookSecret);
        for (const { number: pan } of sandboxTestCards().cards.slice(0, 6)) {
          const { card } = await core.vault.tokenize(merchantId, { number: pan, month: '08', year: '2033', firstName: 'Ada', lastName: name });
          cards.push({ merchantId, token: card.token, pan });
        }
      }
    });
  });
  afterAll(async () => drop?.());

  it('re-encrypts everything under the new active key and prints counts', async () => {
    const first = await runCli(['vault', 'rotate', '--batch-size', '5'], ring({ k1, k2 }, 'k2'));
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe(`active key: k2\ncards re-encrypted: ${cards.length}, failed: 0\nwebhook endpoints re-encrypted: 2, failed: 0\nprocessor accounts re-encrypted: 0, failed: 0\n`);
    const second = await runCli(['vault', 'rotate', '--json'], ring({ k1, k2 }, 'k2'));
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ activeKeyId: 'k2', cards: { rotated: 0, failed: 0 }, webhookSecrets: { rotated: 0, failed: 0 }, processorCredentials: { rotated: 0, failed: 0 } });
  });

  it('leaves every token resolving and every webhook secret opening with the new key alone', async () => {
    await withCore(ring({ k2 }, 'k2'), async (core) => {
      for (const c of cards) expect((await core.vault.reveal(c.merchantId, c.token))?.pan).toBe(c.pan);
      expect(rowsOf(await core.database.db.execute(sql`select distinct key_id from cards`))).toEqual([{ key_id: 'k2' }]);
      for (const r of rowsOf(await core.database.db.execute(sql`select merchant_id, secret_sealed from webhook_endpoints`))) {
        expect(open(core.keyRing, String(r.secret_sealed), webhookSecretAad(String(r.merchant_id))).toString()).toBe(secrets.get(String(r.merchant_id)));
      }
    });
  });

  it('exits 1 with the counts when values cannot be opened with the configured keys', async () => {
    const res = await runCli(['vault', 'rotate'], ring({ k3: key32() }, 'k3'));
    expect(res.status).toBe(1);
    expect(res.stdout).toContain(`cards re-encrypted: 0, failed: ${cards.length}`);
    expect(res.stderr).toMatch(/could not be opened with the configured keys/);
  });

  it('leaves no card number or CVV in clear: logs, files, database', async () => {
    await expectNoCardData({ dataDir: base.RESCUED_DATA_DIR!, databaseUrl: base.DATABASE_URL, logs: '' });
  });
});
