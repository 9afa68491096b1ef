// `webhooks replay --since` a chunk of events at a time, on both databases: the count it
// reports after each chunk, every event replayed once even when many share one created_at
// (the keyset's tie-break), and the command quiet on stderr when it is not a terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { DB_KINDS, freshDatabase, type TestDatabase } from '../../helpers/db.ts';
import { runCli } from '../../helpers/cli.ts';
import { query } from '../../helpers/webhooks.ts';
import { pgliteDirFor } from '../../../src/db/client.ts';
import { replayWebhookEvents } from '../../../src/db/queries/replay-webhook-events.ts';

const EVENTS = 2001;

describe.each(DB_KINDS)('webhooks replay --since, chunk by chunk, on %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-replay-progress-'));
  const env: NodeJS.ProcessEnv = { RESCUED_DATA_DIR: dataDir };
  let t: TestDatabase;
  let mid: string;
  const db = () => t.database.db;

  beforeAll(async () => {
    t = await freshDatabase(kind, { pgliteDir: pgliteDirFor(dataDir) });
    if (t.url) env.DATABASE_URL = t.url;
    const added = await runCli(['merchant', 'add', '--name', 'Replay', '--json'], env, t.database);
    mid = JSON.parse(added.stdout).mid as string;
    const [m] = await query(db(), sql`select id from merchants where mid = ${mid}::uuid`);
    // No dispatcher runs: the address is never called.
    await db().execute(sql`update webhook_endpoints set url = 'https://hooks.example.com/rescued' where merchant_id = ${m!.id}`);
    // Every event at one instant: only the id orders them.
    await db().execute(sql`insert into webhook_events (id, merchant_id, type, payload, created_at)
      select 'msg_' || lpad(to_hex(g), 32, '0'), ${m!.id}, 'order.updated', '{}'::json, now() - interval '1 hour'
      from generate_series(1, ${EVENTS}) g`);
  });
  afterAll(async () => {
    await t?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports the events replayed so far of their total after each chunk, and replays each once', async () => {
    const heard: Array<[number, number]> = [];
    const res = await replayWebhookEvents(db(), { since: new Date(Date.now() - 2 * 3_600_000), onlyDead: false }, new Date(), (done, total) => heard.push([done, total]));
    expect(heard).toEqual([[0, EVENTS], [1000, EVENTS], [2000, EVENTS], [EVENTS, EVENTS]]);
    expect(res.events).toBe(EVENTS);
    expect(new Set(res.replayed.map((r) => r.webhookId)).size).toBe(EVENTS);
    const [n] = await query(db(), sql`select count(*)::int as n, count(distinct event_id)::int as events from webhook_deliveries where is_resent`);
    expect(n).toEqual({ n: EVENTS, events: EVENTS });
  });

  it('the command prints the total and writes nothing on stderr when it is not a terminal', async () => {
    const res = await runCli(['webhooks', 'replay', '--since', '2h', '--mid', mid], env, t.database);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.split('\n')[0]).toBe(`replayed ${EVENTS} of ${EVENTS} event(s)`);
    expect(res.stderr).toBe('');
  });
});
