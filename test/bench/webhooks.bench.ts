// Webhook deliveries per second through the dispatcher (claim, sign, POST, record) to a local
// receiver, beside bare loops of HTTP POSTs to the same receiver in the same run: node's
// http module with a keep-alive agent (what the dispatcher uses) and fetch. The receiver
// runs in a child process so it does not share the event loop with the sender. Deliveries
// count once their row says `delivered`. One endpoint (capped at webhooks.perEndpointConcurrency
// POSTs at once) and eight endpoints. PostgreSQL when DATABASE_URL or TEST_DATABASE_URL is
// set (the target, ≥ 1,000/s, is for PostgreSQL), and PGlite.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { Value } from '@sinclair/typebox/value';
import { measure, report, type Rate } from './lib.ts';

const TARGET = { perSecond: 1_000 };
const COUNT = Number(process.env.BENCH_WEBHOOKS ?? 10_000);
/** BENCH_KINDS=postgres or pglite runs one database only. */
const KINDS = process.env.BENCH_KINDS?.split(',');
const CONCURRENCY = 64;
const BODY = JSON.stringify({ Event: 'ORDER COMPLETE', TimeStamp: new Date().toISOString(), EventData: { type: 'order.completed', status: 'APPROVED', reason: null, amount: 19.99, currency: 'USD', attempts: 3 }, ExternalOrderId: 'order-1', OrderId: '00000000-0000-4000-8000-000000000000', ConfirmationId: 'conf-1', IsTestMode: true, IsResent: false });

// ---- child: the receiver ----------------------------------------------------------------
function receive(): void {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
}

function startReceiver(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--receive'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, port: Number(line) }));
  });
}

// ---- baselines: bare POST loops ------------------------------------------------------------
async function loop(n: number, post: () => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < n) await post();
  }));
}

function httpPost(agent: http.Agent, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(BODY);
  });
}

async function fetchPost(url: string): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
  await res.arrayBuffer();
  if (res.status !== 204) throw new Error(`HTTP ${res.status}`);
}

// ---- the dispatcher ----------------------------------------------------------------------
async function throughDispatcher(kind: 'pglite' | 'postgres', url: string, endpoints: number, perEndpointCap?: number): Promise<Rate> {
  const { freshDatabase, silentLog } = await import('../helpers/db.ts');
  const { key32 } = await import('../helpers/keys.ts');
  const { keyRingFrom } = await import('../../src/vault/cipher.ts');
  const { createMerchantService } = await import('../../src/merchants/service.ts');
  const { createDispatcher } = await import('../../src/webhooks/dispatcher.ts');
  const { ConfigSchema } = await import('../../src/config/schema.ts');
  const config = Value.Default(ConfigSchema, {}) as { webhooks: { timeoutMs: number; maxInFlight: number; perEndpointConcurrency: number; leaseSeconds: number; pollIntervalMs: number } };
  const t = await freshDatabase(kind, { poolSize: 10 });
  const db = t.database.db;
  const keyRing = keyRingFrom({ v1: key32() }, 'v1');
  const merchants = createMerchantService({ db, vault: keyRing, mode: 'sandbox' });
  const ids: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const creds = await merchants.add({ name: `Bench ${i}` });
    await merchants.setWebhook(creds.mid, url);
    ids.push((await merchants.byMid(creds.mid)).id);
  }
  // The outbox rows, as the engine would have written them, spread over the endpoints.
  await db.execute(sql`
    with m as (select id, row_number() over (order by id) - 1 as k from merchants where id = any(${`{${ids.join(',')}}`}::uuid[])),
    ev as (
      insert into webhook_events (id, merchant_id, type, payload)
      select 'msg_' || md5(g::text || random()::text), m.id, 'order.completed', ${BODY}::json
      from generate_series(0, ${COUNT - 1}) g join m on m.k = g % ${endpoints}
      returning id, merchant_id
    )
    insert into webhook_deliveries (event_id, endpoint_id, status, next_attempt_at)
    select ev.id, e.id, 'pending', now() from ev join webhook_endpoints e on e.merchant_id = ev.merchant_id`);
  const delivered = async () => {
    const result = (await db.execute(sql`select count(*)::int as n from webhook_deliveries where status = 'delivered'`)) as unknown;
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{ n: number }>;
    return rows[0]!.n;
  };
  const settings = { ...config.webhooks, perEndpointConcurrency: perEndpointCap ?? config.webhooks.perEndpointConcurrency };
  const dispatcher = createDispatcher({ db, keyRing, log: silentLog, mode: 'sandbox', ...settings });
  const rate = await measure(`dispatcher, ${endpoints} endpoint${endpoints > 1 ? 's' : ''}, ${settings.perEndpointConcurrency} POSTs at once per endpoint`, COUNT, async () => {
    dispatcher.start();
    while ((await delivered()) < COUNT) await new Promise((r) => setTimeout(r, 100));
  });
  await dispatcher.stop();
  await t.dispose();
  return rate;
}

async function main(): Promise<void> {
  process.env.TEST_DATABASE_URL ??= process.env.DATABASE_URL;
  const kinds = (KINDS ?? (process.env.TEST_DATABASE_URL ? ['postgres', 'pglite'] : ['pglite'])) as Array<'pglite' | 'postgres'>;
  console.log(`webhook deliveries, ${COUNT} per run, Node ${process.version}${kinds.length === 1 ? ' (set DATABASE_URL or TEST_DATABASE_URL to run on PostgreSQL)' : ''}`);
  const { child, port } = await startReceiver();
  const url = `http://127.0.0.1:${port}/hooks`;
  let ok = true;
  try {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    await loop(2_000, () => httpPost(agent, url));
    const bare = await measure(`bare http.request loop, ${CONCURRENCY} at once`, COUNT, () => loop(COUNT, () => httpPost(agent, url)));
    agent.destroy();
    await loop(2_000, () => fetchPost(url));
    const viaFetch = await measure(`bare fetch loop, ${CONCURRENCY} at once`, COUNT, () => loop(COUNT, () => fetchPost(url)));
    console.log(`\nbaselines: http.request ${Math.round(bare.perSecond)}/s, fetch ${Math.round(viaFetch.perSecond)}/s (fetch ${(viaFetch.perSecond / bare.perSecond).toFixed(2)}x of http.request)`);
    for (const kind of kinds) {
      // The default per-endpoint cap, then one endpoint allowed the whole in-flight budget.
      for (const [endpoints, cap] of [[1, undefined], [8, undefined], [1, 64]] as const) {
        const ours = await throughDispatcher(kind, url, endpoints, cap);
        console.log(`\n${kind}:`);
        report(ours, bare, kind === 'postgres' ? TARGET : undefined);
        if (kind === 'postgres' && endpoints === 1 && cap === undefined) ok = ours.perSecond >= TARGET.perSecond && ok;
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
  if (!ok) process.exitCode = 1;
}

if (process.argv[2] === '--receive') receive();
else await main();
