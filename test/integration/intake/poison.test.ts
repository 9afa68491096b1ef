// No poison files: a batch file the database refuses is set aside at once (quarantine, ack,
// alert); one that meets a transient failure is tried again with backoff and set aside after
// intake.maxTries. Before, either one failed the whole ingest with no ack and stayed in
// inbound/ — card numbers included — to fail again at every start.
// The failures are the database's own: a trigger raises the SQLSTATE, and on PostgreSQL one
// terminates the ingesting connection itself.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.ts';
import { registry } from '../../../src/metrics.ts';
import { createIngestQueue, type RetryPolicy } from '../../../src/intake/queue.ts';
import { rowsOf } from '../../../src/db/queries/raw-rows.ts';
import type { ReadyFile } from '../../../src/sftp/handover.ts';
import { DB_KINDS } from '../../helpers/db.ts';
import { useIntakeFixture, type IntakeFixture } from '../../helpers/intake.ts';

const PAN = '5555555555554444';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((n) => join(dir, n)).filter((p) => statSync(p).isFile());
}

async function metric(name: string, labels = ''): Promise<number> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe.each(DB_KINDS)('files intake cannot store, on %s', (kind) => {
  const fixture = useIntakeFixture(kind);
  let f: IntakeFixture;
  let lines: Record<string, unknown>[];
  beforeAll(() => {
    f = fixture();
  });
  afterEach(async () => {
    for (const drop of ['drop trigger if exists poison on orders', 'drop function if exists poison()', 'drop sequence if exists poison_tries']) await f.tdb.database.db.execute(sql.raw(drop));
  });

  /** Makes inserting orders fail: `body` is plpgsql run per row, with `n` the try number. */
  async function poison(body: string): Promise<void> {
    await f.tdb.database.db.execute(sql.raw(`create sequence poison_tries`));
    await f.tdb.database.db.execute(sql.raw(`create function poison() returns trigger language plpgsql as $$ declare n bigint; begin
      if new.sequence_number = 1 then n := nextval('poison_tries'); ${body} end if; return new; end $$`));
    await f.tdb.database.db.execute(sql.raw('create trigger poison before insert on orders for each row execute function poison()'));
  }

  function queue(policy: Partial<RetryPolicy> = {}) {
    lines = [];
    const log = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
    return createIngestQueue({
      deps: { ...f.deps, log },
      policy: { maxTries: 3, retryBaseMs: 20, retryMaxMs: 100, ...policy },
      quarantineDir: join(f.root, 'quarantine'),
      outboundFor: async () => join(f.root, 'outbound'),
      log,
    });
  }

  /** A batch with a full card number in a field the model drops, dropped into inbound/. */
  function drop(name: string, tag: string, opts: { gzip?: boolean } = {}): ReadyFile {
    const batch = JSON.parse(f.variant('valid.json', tag)) as { requests: Array<Record<string, unknown>> };
    batch.requests[0]!.notes = `card ${PAN} cvv 737`;
    const file = f.drop(name, JSON.stringify(batch), opts);
    return { merchantId: file.merchantId, mid: file.mid, username: 'u', path: file.path, name, size: statSync(file.path).size };
  }

  const ackOf = (name: string) => JSON.parse(readFileSync(join(f.root, 'outbound', `${name}.ack.json`), 'utf8')) as Record<string, unknown>;
  const ordersOf = async (tag: string) => Number(rowsOf(await f.tdb.database.db.execute(sql.raw(`select count(*) as n from orders where order_id like 'ORD-${tag}-%'`)))[0]!.n);

  it('a database refusal sets the file aside at once: redacted copy, ack, alert; nothing stored', async () => {
    await poison(`raise exception 'refused for the test' using errcode = '22P05';`);
    const before = await metric('rescued_intake_quarantined_total', '{reason="refused"}');
    const q = queue();
    await q.onFileReady(drop('refused.json', 'refused'));
    await q.stop();

    expect(ackOf('refused.json')).toMatchObject({
      status: 'rejected', input: 'quarantined', batchId: null,
      error: { code: 'ERR_INTAKE_STORAGE_REFUSED', message: expect.stringContaining('(SQLSTATE 22P05)') as unknown },
    });
    expect(existsSync(join(f.root, 'inbound', 'refused.json'))).toBe(false);
    const [copy, ...more] = filesUnder(join(f.root, 'quarantine'));
    expect(more).toEqual([]);
    expect(copy).toMatch(new RegExp(`quarantine/${f.merchant.mid}/\\d{4}-\\d{2}-\\d{2}/.+-refused\\.json$`));
    const text = readFileSync(copy!, 'utf8');
    expect(text).not.toContain(PAN);
    expect(text).toContain('555555******4444');
    expect(text).not.toContain('cvv 737');
    expect(text).toContain('cvv [redacted]');
    expect(text).toContain('"ORD-refused-');
    expect(await ordersOf('refused')).toBe(0);
    expect(lines.filter((l) => l.msg === 'ingest failed; the file will be tried again')).toEqual([]);
    expect(lines.find((l) => l.msg === 'batch file quarantined: intake could not store it')).toMatchObject({ level: 'error', code: 'ERR_INTAKE_STORAGE_REFUSED', sqlState: '22P05', tries: 1 });
    expect(JSON.stringify(lines)).not.toContain(PAN);
    expect(await metric('rescued_intake_quarantined_total', '{reason="refused"}')).toBe(before + 1);
  });

  it('a transient failure is tried again with backoff, and the file then ingested', async () => {
    // On PostgreSQL a chunk whose COPY fails is inserted again by INSERT in the same try
    // (copy-orders.ts): two calls of the trigger per failed try.
    const failures = kind === 'postgres' ? 4 : 2;
    await poison(`if n <= ${failures} then raise exception 'connection lost for the test' using errcode = '08006'; end if;`);
    const retries = await metric('rescued_intake_retries_total');
    const q = queue({ maxTries: 5 });
    await q.onFileReady(drop('flaky.json', 'flaky'));
    await expect.poll(() => existsSync(join(f.root, 'outbound', 'flaky.json.ack.json')), { timeout: 5000 }).toBe(true);
    await q.stop();
    expect(ackOf('flaky.json')).toMatchObject({ status: 'accepted', input: 'deleted' });
    expect(await ordersOf('flaky')).toBeGreaterThan(0);
    expect(lines.filter((l) => l.msg === 'ingest failed; the file will be tried again').map((l) => [l.tries, l.retryInMs])).toEqual([[1, 20], [2, 40]]);
    expect(await metric('rescued_intake_retries_total')).toBe(retries + 2);
  });

  it('a failure that outlasts intake.maxTries sets the file aside; a gzip file stays gzip, redacted', async () => {
    await poison(`raise exception 'still down for the test' using errcode = '57P03';`);
    const before = await metric('rescued_intake_quarantined_total', '{reason="transient"}');
    const q = queue({ maxTries: 3 });
    await q.onFileReady(drop('down.json.gz', 'down', { gzip: true }));
    await expect.poll(() => existsSync(join(f.root, 'outbound', 'down.json.gz.ack.json')), { timeout: 5000 }).toBe(true);
    await q.stop();
    expect(ackOf('down.json.gz')).toMatchObject({ input: 'quarantined', error: { code: 'ERR_INTAKE_STORAGE_UNAVAILABLE', message: expect.stringContaining('through 3 tries') as unknown } });
    const copy = filesUnder(join(f.root, 'quarantine')).find((p) => p.endsWith('-down.json.gz'))!;
    const text = gunzipSync(readFileSync(copy)).toString('utf8');
    expect(text).toContain('555555******4444');
    expect(text).not.toContain(PAN);
    expect(existsSync(join(f.root, 'inbound', 'down.json.gz'))).toBe(false);
    expect(lines.filter((l) => l.msg === 'ingest failed; the file will be tried again')).toHaveLength(2);
    expect(await metric('rescued_intake_quarantined_total', '{reason="transient"}')).toBe(before + 1);
  });

  // PGlite runs in this process: it has no connection to lose.
  if (kind === 'postgres') it('a connection lost in the middle of a file is tried again on a new one', async () => {
    await poison(`if n = 1 then perform pg_terminate_backend(pg_backend_pid()); end if;`);
    const q = queue({ maxTries: 3 });
    await q.onFileReady(drop('cut.json', 'cut'));
    await expect.poll(() => existsSync(join(f.root, 'outbound', 'cut.json.ack.json')), { timeout: 10_000 }).toBe(true);
    await q.stop();
    expect(ackOf('cut.json')).toMatchObject({ status: 'accepted' });
    expect(lines.filter((l) => l.msg === 'ingest failed; the file will be tried again')).toHaveLength(1);
  });
});
