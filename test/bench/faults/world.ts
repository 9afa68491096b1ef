// One scenario's world: a database of its own on the private PostgreSQL cluster, a data folder
// (its SFTP root perhaps on a small tmpfs) and, for each trial, a merchant with an SSH key, its
// webhook endpoint on the receiver, a long-lived access token for batch headers, test cards in
// the vault and, for a gateway scenario, that gateway's fake as its default account. The daemon is
// configured through a config file (the webhook retry schedule is a list, which the
// environment cannot carry) with short times, so that trials end in seconds.
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { entry, type BatchOptions } from '../../../samples/generate-batch.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { openCore } from '../../../src/core.ts';
import { createLogger } from '../../../src/log.ts';
import { createAccountService } from '../../../src/processors/accounts.ts';
import { sandboxTestCards } from '../../../src/vault/test-cards.ts';
import { sftp, sshKey, type ClientResult, type Login } from '../../helpers/sftp.ts';
import { supervise, type Supervised } from './daemon.ts';
import type { Fakes, Gateway } from './fakes.ts';
import { freePort, type PrivatePg } from './pg.ts';
import { startFlakyReceiver, type FlakyReceiver } from './receiver.ts';

/**
 * Approved at the first attempt (the sandbox's test cards; a gateway fake answers as scripted),
 * and a hard decline (EXPIRED at once, no retry). Eight cards: a merchant may charge one card at
 * most 15 times in 30 days (Visa), so a trial's file of n orders needs n / 8 of those per card.
 */
export const APPROVE = [
  '4111111111111111', '5555555555554444', '4242424242424242', '378282246310005',
  '4000056655665556', '2223003122003222', '6011111111111117', '36227206271667',
];
export const HARD_DECLINE = '4000000000009987';

export interface WorldOptions {
  name: string;
  pg: PrivatePg;
  fakes: Fakes;
  /** The merchant's gateway accounts (labelled by type), the first its default; none: the built-in sandbox processor. */
  gateways?: Gateway[] | undefined;
  /** A folder to use as the SFTP root (a tmpfs mount), instead of <dataDir>/sftp. */
  sftpRoot?: string | undefined;
  /** Config overrides, merged one level deep over the campaign's. */
  config?: Record<string, Record<string, unknown>>;
  /** How long the daemon may take to serve after a start (slow machines). */
  startTimeoutMs: number;
}

export interface BatchShape {
  /**
   * Entry i's amount is amountBase + i (modulo 15,000: an amount must stay under 20,000 cents):
   * unique per order in a file of up to 15,000 entries, so a fake's charges name their order.
   */
  amountBase: number;
  /** Every n-th entry is a hard decline (EXPIRED at once). */
  hardEvery?: number;
  /**
   * Only every n-th entry is an approving card, the others hard declines whose file says so
   * (declined lost_card), so that planning expires them at once. The sandbox knows
   * eight approving cards, which one merchant may charge 8 × 15 times in 30 days: past that,
   * each further order of those cards is planned, claimed, dropped at the card cap and planned
   * again, which is most of what a file of 100,000 orders on eight cards would measure (194 s
   * a trial against 105 s), not its intake. Real files are of distinct cards.
   */
  approveEvery?: number;
  /** The account label entry i names (additionalFields processorAccount). */
  account?: (i: number) => string;
}

export interface World {
  name: string;
  /** The world's temporary folder (config, data, local files), removed by close(). */
  dir: string;
  dataDir: string;
  sftpRoot: string;
  username: string;
  mid: string;
  merchantId: string;
  webhookSecret: string;
  login: Login;
  receiver: FlakyReceiver;
  daemon: Supervised;
  sql: postgres.Sql;
  /** The current merchant's inbound/ and outbound/ folders on the SFTP root. */
  inbound(): string;
  outbound(): string;
  /** Writes a batch file of `entries` orders into the local folder; returns its path. */
  batch(file: string, entries: number, o: BatchShape): Promise<string>;
  /**
   * The orders of a batch written straight into the database (a batch row and its orders, due
   * now), as intake would leave them: for the scenarios whose subject is not intake.
   */
  seed(file: string, entries: number, o: BatchShape): Promise<void>;
  /** `put` with the OpenSSH client into inbound/ (a temporary name, then rename, as careful clients do). */
  put(path: string, name: string): Promise<ClientResult>;
  /**
   * The files' orders waiting for a later attempt made due now, as if that time had come: the
   * planner rightly puts a generic decline's next try days ahead, which no trial can wait for.
   * Only the clock is skipped; claims, attempts and the rules run as they do.
   */
  makeDue(files: string[]): Promise<void>;
  /**
   * A new merchant (SSH key, webhook endpoint, gateway accounts, cards, token) for the next
   * trial: a card's reattempt counters are per merchant, and the trials of a scenario together
   * charge the same test cards far more often than the networks allow one merchant in 30 days.
   */
  nextMerchant(): Promise<void>;
  close(): Promise<void>;
}


/** The campaign's settings: every wait the engine, sweeps, webhooks and processor make is short. */
function campaignConfig(o: { dataDir: string; url: string; httpPort: number; sftpPort: number; sftpRoot: string; gatewayUrls: Record<string, string> }) {
  return {
    mode: 'sandbox', dataDir: o.dataDir, log: { level: 'info' },
    database: { url: o.url, poolSize: 10 },
    http: { port: o.httpPort },
    auth: { tokenLifetimeSeconds: 86_400 },
    sftp: { port: o.sftpPort, rootDir: o.sftpRoot, watchStabilityMs: 300 },
    // Mastercard's limits raised for the campaign alone: its files put 25 orders on each of
    // eight cards, whose original declines count (25 in 24 hours, past Mastercard's 20, holds a
    // card for a day, which a real clock waits out and makeDue, moving only the orders, does
    // not). Visa's 20 still caps its cards, so capped orders are still exercised.
    engine: {
      pollIntervalMs: 100, leaseSeconds: 5, sweepCron: '* * * * * *',
      mastercardAttemptLimits: [{ fromUtc: '2023-11-01', maxAttemptsPer30Days: 100, maxDeclinesPer24Hours: 100 }],
      // The campaign waits for every order to end; an order whose card must change would wait
      // for an updated card until its deadline (sandbox's default), days past the campaign.
      awaitUpdatedCard: 'off',
    },
    processor: { timeoutMs: 2000, reconcileAfterMs: 500, reconcileTimeoutMs: 600_000, breakerCooldownMs: 1000, accountConcurrency: 8, gatewayUrls: o.gatewayUrls },
    webhooks: { timeoutMs: 2000, leaseSeconds: 5, pollIntervalMs: 100, retryDelaysMs: [500, 1000, 2000, 4000, 8000, 15_000, 30_000, 60_000, 60_000, 60_000] },
    intake: { retryBaseMs: 500, retryMaxMs: 5000, maxTries: 100 },
    shutdown: { drainTimeoutMs: 5000 },
  };
}

function merge(base: Record<string, unknown>, over: Record<string, Record<string, unknown>> = {}): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = { ...(base[k] as Record<string, unknown>), ...v };
  return out;
}

interface Merchant {
  mid: string;
  siteId: string;
  merchantId: string;
  username: string;
  webhookSecret: string;
  bearer: string;
  keyPath: string;
  /** Card number → its vault token at this merchant. */
  tokens: Map<string, string>;
}

/** A merchant as the operator would set one up, written through the daemon's own core. */
async function addMerchant(a: { name: string; configFile: string; local: string; key: string; receiverUrl: string; gateways: Gateway[]; fakes: Fakes }): Promise<Merchant> {
  const core = await openCore(loadConfig({ env: { RESCUED_CONFIG: a.configFile } }), createLogger({ level: 'silent' }));
  const key = sshKey(a.local, a.key);
  try {
    const creds = await core.merchants.add({ name: a.name });
    const merchantId = (await core.merchants.byMid(creds.mid)).id;
    await core.merchants.addKey(creds.mid, key.publicText);
    await core.merchants.allowIp(creds.mid, '127.0.0.1');
    await core.merchants.setWebhook(creds.mid, a.receiverUrl);
    const accounts = createAccountService({ db: core.database.db, ring: core.keyRing, mode: core.config.mode });
    for (const [i, g] of a.gateways.entries()) await accounts.add(creds.mid, { type: g, label: g, isDefault: i === 0, credentials: a.fakes.credentials(g) as never });
    const tokens = new Map<string, string>();
    for (const n of [...APPROVE, HARD_DECLINE]) tokens.set(n, (await core.vault.tokenize(merchantId, { number: n, month: 12, year: 2035, firstName: 'Test', lastName: 'Payer' })).card.token);
    const { token } = await core.tokens.issue({ merchantId, mid: creds.mid, clientId: creds.clientId });
    return { mid: creds.mid, siteId: creds.siteId, merchantId, username: creds.sftpUsername, webhookSecret: creds.webhookSecret, bearer: `Bearer ${token}`, keyPath: key.privatePath, tokens };
  } finally {
    await core.database.close();
  }
}

export async function makeWorld(o: WorldOptions): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), `rescued-faults-${o.name}-`));
  const dataDir = join(dir, 'data');
  const local = join(dir, 'local');
  mkdirSync(local, { recursive: true });
  const sftpRoot = o.sftpRoot ?? join(dataDir, 'sftp');
  const [httpPort, sftpPort, receiver] = await Promise.all([freePort(), freePort(), startFlakyReceiver()]);
  const url = await o.pg.createDatabase(`faults_${o.name.replace(/\W/g, '_')}_${Date.now().toString(36)}`);
  const config = merge(campaignConfig({ dataDir, url, httpPort, sftpPort, sftpRoot, gatewayUrls: o.fakes.urls }), o.config);
  const configFile = join(dir, 'rescued.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const env = { RESCUED_CONFIG: configFile, NODE_EXTRA_CA_CERTS: o.fakes.caFile };

  let k = 0;
  const merchant = () => addMerchant({ name: `Faults ${o.name} ${++k}`, configFile, local, key: `id_${k}`, receiverUrl: receiver.url, gateways: o.gateways ?? [], fakes: o.fakes });
  let m = await merchant();
  receiver.trust(m.webhookSecret);
  const sql = postgres(url, { max: 2, onnotice: () => {}, connect_timeout: 5 });
  const cardOf = (n: string) => {
    const card = sandboxTestCards().find(n)!;
    return { cardNumber: m.tokens.get(n)!, token: true, bin: n.slice(0, 6), last4: n.slice(-4), brand: card.brand, month: 12, year: 2035 };
  };
  const daemon = supervise(env, httpPort, o.startTimeoutMs);
  const entryOf = (file: string, i: number, b: BatchShape) => {
    const hard = (b.hardEvery !== undefined && (i + 1) % b.hardEvery === 0) || (b.approveEvery !== undefined && i % b.approveEvery !== 0);
    const card = cardOf(hard ? HARD_DECLINE : APPROVE[i % APPROVE.length]!);
    const e = entry(i, { entries: 0, mid: m.mid, siteId: m.siteId, authorizationToken: m.bearer, cardTokens: [], runId: file.replace(/\.json$/, ''), cards: [card] });
    (e.transaction as Record<string, unknown>).amount = b.amountBase + (i % 15_000);
    // Declined "lost card" in the first place (Stripe's code, the entries' source), as the
    // card answers: planned EXPIRED at once.
    if (hard && b.approveEvery !== undefined) (e.transaction as Record<string, unknown>).responseCode = 'lost_card';
    if (b.account) e.additionalFields = [{ key: 'processorAccount', value: b.account(i) }];
    return { e, card };
  };
  return {
    name: o.name, dir, dataDir, sftpRoot, receiver, sql, daemon,
    get username() {
      return m.username;
    },
    get mid() {
      return m.mid;
    },
    get merchantId() {
      return m.merchantId;
    },
    get webhookSecret() {
      return m.webhookSecret;
    },
    get login() {
      return { port: sftpPort, username: m.username, key: m.keyPath };
    },
    async nextMerchant() {
      m = await merchant();
      receiver.trust(m.webhookSecret);
    },
    inbound: () => join(sftpRoot, m.username, 'inbound'),
    outbound: () => join(sftpRoot, m.username, 'outbound'),
    async batch(file, entries, b) {
      const path = join(local, file);
      const out = createWriteStream(path);
      const opts: BatchOptions = { entries, mid: m.mid, siteId: m.siteId, authorizationToken: m.bearer, cardTokens: [], runId: file.replace(/\.json$/, ''), expiryDateUtc: new Date(Date.now() + 30 * 86_400_000).toISOString() };
      const write = async (s: string) => void (out.write(s) || (await once(out, 'drain')));
      await write(`{"mid":${JSON.stringify(m.mid)},"authorizationToken":${JSON.stringify(m.bearer)},"expiryDateUtc":${JSON.stringify(opts.expiryDateUtc)},"requests":[\n`);
      for (let i = 0; i < entries; i++) {
        const { e } = entryOf(file, i, b);
        await write(`${i ? ',\n' : ''}${JSON.stringify(e)}`);
      }
      out.end('\n]}\n');
      await once(out, 'finish');
      return path;
    },
    async seed(file, entries, b) {
      const batchId = randomUUID();
      const now = new Date();
      const rows = Array.from({ length: entries }, (_, i) => {
        const { e, card } = entryOf(file, i, b);
        const tx = e.transaction as { amount: number; currency: string; responseCode: string; responseCodeSource: string };
        e.expiryDateUtc = new Date(now.getTime() + 30 * 86_400_000).toISOString();
        return {
          id: randomUUID(), merchant_id: m.merchantId, batch_id: batchId, sequence_number: i + 1, order_id: e.orderId as string, idempotency_key: e.idempotencyKey as string,
          kind: 'MIT', status: 'PENDING', amount: tx.amount, currency: tx.currency, card_token: card.cardNumber, card_brand: card.brand, card_bin: card.bin, card_last4: card.last4,
          expires_at: new Date(now.getTime() + 30 * 86_400_000), decline_code: tx.responseCode, decline_source: tx.responseCodeSource, request: sql.json(e as never),
          next_attempt_at: new Date(now.getTime() - 1000), created_at: now, updated_at: now,
        };
      });
      await sql.begin(async (t) => {
        await t`insert into batches ${t({ id: batchId, merchant_id: m.merchantId, file_name: file, sha256: randomUUID(), status: 'accepted', entry_count: entries, accepted_count: entries, rejected_count: 0, received_at: now, finished_at: now })}`;
        for (let i = 0; i < rows.length; i += 500) await t`insert into orders ${t(rows.slice(i, i + 500))}`;
      });
    },
    put: (path, name) => sftp({ port: sftpPort, username: m.username, key: m.keyPath }, [`put ${path} inbound/.${name}.part`, `rename inbound/.${name}.part inbound/${name}`]),
    async makeDue(files) {
      await sql`
        update orders o set next_attempt_at = now() - interval '1 second' from batches b
        where b.id = o.batch_id and o.merchant_id = ${m.merchantId} and b.file_name in ${sql(files)}
          and o.status = 'PENDING' and o.next_attempt_at > now() + interval '5 seconds'`;
    },
    async close() {
      await daemon.stop();
      await Promise.all([receiver.close(), sql.end({ timeout: 5 })]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
