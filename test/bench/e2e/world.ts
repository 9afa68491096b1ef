// The end-to-end bench's world: the daemon's config (sandbox mode, keys of the bench's own so it
// can seal cards for the daemon's vault, a Stripe account at the local fake as the merchant's
// default, the settings under test), the merchant (SSH key, webhook endpoint, access token),
// and the rebill file with its cards, written in one streaming pass: entry n's card is sealed
// and COPYed into the vault while the entry is written to the file, so neither a million cards
// nor a million entries is ever held.
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import postgres from 'postgres';
import { entry } from '../../../samples/generate-batch.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { openCore } from '../../../src/core.ts';
import { createLogger } from '../../../src/log.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';
import { keyRingFrom } from '../../../src/vault/cipher.ts';
import { sealCard } from '../../../src/vault/sealed-card.ts';
import { sshKey } from '../../helpers/sftp.ts';
import { cardOf, orderIdOf } from './fate.ts';

export interface Settings {
  concurrency: number;
  ratePerSecond: number;
  accountConcurrency: number;
  accountRatePerSecond: number;
  claimBatchSize: number;
  poolSize: number;
  /** webhooks.perEndpointConcurrency and maxInFlight: the receiver is one endpoint. */
  webhookConcurrency: number;
  webhookMaxInFlight: number;
}

export interface ConfigInput {
  dir: string;
  url: string;
  httpPort: number;
  sftpPort: number;
  stripeUrl: string;
  settings: Settings;
}

const key32 = () => randomBytes(32).toString('base64');

/** Writes the daemon's config file; returns its path and the vault's keys (for sealing cards). */
export function writeConfig(o: ConfigInput): { file: string; vaultKey: string } {
  const vaultKey = key32();
  const s = o.settings;
  const config = {
    mode: 'sandbox', dataDir: join(o.dir, 'data'), log: { level: 'warn' },
    database: { url: o.url, poolSize: s.poolSize },
    http: { port: o.httpPort },
    auth: { tokenLifetimeSeconds: 86_400, signingKeys: { e2e: key32() }, activeSigningKeyId: 'e2e' },
    vault: { keys: { e2e: vaultKey }, activeKeyId: 'e2e', fingerprintKey: key32() },
    // A million entries is a 1.8 GB file: past the default 1 GiB file size and quota, which an
    // operator raises for such a merchant.
    sftp: { port: o.sftpPort, maxFileSizeBytes: 8 * 1024 ** 3, quotaBytes: 16 * 1024 ** 3 },
    // Every order ends within the run: a hard-declined card ends its order at once rather than
    // waiting for an updated card until the deadline (sandbox's default, docs/engine.md).
    engine: { claimBatchSize: s.claimBatchSize, awaitUpdatedCard: 'off' },
    processor: {
      concurrency: s.concurrency, ratePerSecond: s.ratePerSecond, accountConcurrency: s.accountConcurrency, accountRatePerSecond: s.accountRatePerSecond,
      gatewayUrls: { stripe: o.stripeUrl },
    },
    webhooks: { perEndpointConcurrency: s.webhookConcurrency, maxInFlight: s.webhookMaxInFlight },
  };
  const file = join(o.dir, 'rescued.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return { file, vaultKey };
}

export interface Merchant {
  merchantId: string;
  mid: string;
  siteId: string;
  username: string;
  webhookSecret: string;
  bearer: string;
  keyPath: string;
}

/** The merchant as an operator sets one up, through the daemon's own core (which migrates). */
export async function addMerchant(a: { configFile: string; dir: string; receiverUrl: string; stripeKey: string }): Promise<Merchant> {
  const core = await openCore(loadConfig({ env: { RESCUED_CONFIG: a.configFile } }), createLogger({ level: 'silent' }));
  const key = sshKey(a.dir, 'id_e2e');
  try {
    const creds = await core.merchants.add({ name: 'E2E bench' });
    const merchantId = (await core.merchants.byMid(creds.mid)).id;
    await core.merchants.addKey(creds.mid, key.publicText);
    await core.merchants.allowIp(creds.mid, '127.0.0.1');
    await core.merchants.setWebhook(creds.mid, a.receiverUrl);
    const accounts = createAccountService({ db: core.database.db, ring: core.keyRing, mode: core.config.mode });
    await accounts.add(creds.mid, { type: 'stripe', label: 'stripe', isDefault: true, credentials: { secretKey: a.stripeKey, rawCardData: true } as never });
    const { token } = await core.tokens.issue({ merchantId, mid: creds.mid, clientId: creds.clientId });
    return { merchantId, mid: creds.mid, siteId: creds.siteId, username: creds.sftpUsername, webhookSecret: creds.webhookSecret, bearer: `Bearer ${token}`, keyPath: key.privatePath };
  } finally {
    await core.database.close();
  }
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/**
 * The rebill file of `entries` MIT entries, each on a card of its own sealed into the vault
 * (COPY, as the vault would hold it after tokenizing). Each entry's original decline is
 * Stripe's issuer_not_available an hour ago: a temporary decline, so its first attempt is
 * planned at once (engine timing: a plan is at least a minute ahead, which the bench skips).
 */
export async function writeRebills(o: { path: string; url: string; vaultKey: string; m: Merchant; run: string; entries: number; onProgress?: (n: number) => void }): Promise<number> {
  const ring = keyRingFrom({ e2e: o.vaultKey }, 'e2e');
  const sql = postgres(o.url, { max: 1, onnotice: () => {} });
  const file = createWriteStream(o.path);
  const copy = await sql`copy cards (token, merchant_id, fingerprint, sealed, key_id, bin, last4, exp_month, exp_year, brand, test) from stdin`.writable();
  const copied = new Promise<void>((resolve, reject) => (copy.on('finish', resolve), copy.on('error', reject)));
  const expiryDateUtc = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const declinedAt = new Date(Date.now() - 3_600_000);
  await write(file, `{"mid":${JSON.stringify(o.m.mid)},"authorizationToken":${JSON.stringify(o.m.bearer)},"expiryDateUtc":${JSON.stringify(expiryDateUtc)},"requests":[\n`);
  for (let n = 0; n < o.entries; n++) {
    const c = cardOf(o.run, n);
    const card = { cardNumber: c.token, token: true, bin: c.pan.slice(0, 6), last4: c.pan.slice(-4), brand: c.brand, month: 12, year: 2035 };
    const sealed = sealCard(ring, o.m.merchantId, c.token, { pan: c.pan, holderName: 'E2E Payer' });
    // The fingerprint only has to be unique per merchant here: no entry gives a full number.
    await write(copy, `${c.token}\t${o.m.merchantId}\te2e${o.run}${n}\t${sealed}\te2e\t${card.bin}\t${card.last4}\t12\t2035\t${c.brand}\tf\n`);
    const e = entry(n, { entries: 0, mid: o.m.mid, siteId: o.m.siteId, authorizationToken: o.m.bearer, cardTokens: [], runId: o.run, cards: [card], declinedAt });
    e.orderId = orderIdOf(o.run, n);
    Object.assign(e.transaction as Record<string, unknown>, { responseCode: 'issuer_not_available', responseDescription: 'Issuer not available', responseCodeSource: 'stripe' });
    await write(file, `${n ? ',\n' : ''}${JSON.stringify(e)}`);
    if (n % 10_000 === 0) o.onProgress?.(n);
  }
  copy.end();
  file.end('\n]}\n');
  await Promise.all([copied, once(file, 'finish')]);
  await sql.end();
  return o.entries;
}
