// Nothing vanishes silently: files rejected whole, uploaded over SFTP with the OpenSSH client
// to the real SFTP stage and intake queue, on both databases. The causes are generated from a
// seed (not JSON, a wrong mid, a token not the merchant's, an invalid header, too many keys in
// the header, too many entries, nesting too deep, a duplicate of an ingested file, a name that
// is not a batch file's). Each one gets an ack saying why, leaves inbound/, and is listed with
// its reason, its size and its time by `rescued batches list|show`, GET /v1/batches[/{id}] and
// the console's batches page; no card number appears in any of them.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngestQueue, type IngestQueue } from '../../../src/intake/queue.ts';
import { DEFAULT_LIMITS } from '../../../src/intake/limits.ts';
import { userDirs } from '../../../src/sftp/paths.ts';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { sampleBatch, tokenPassThrough } from '../../helpers/intake.ts';
import { seeded } from '../../helpers/seeded.ts';
import { sftp, startTestSftp, tmp, type TestSftp } from '../../helpers/sftp.ts';
import { runCli } from '../../helpers/cli.ts';
import { waitFor } from '../../helpers/wait.ts';
import { consoleFixture, type ConsoleFixture } from '../console/fixture.ts';

const PAN = '4111111111111111';
const SEED = 28;
const LIMITS = { ...DEFAULT_LIMITS, maxEntries: 4, maxDepth: 8, maxHeaderKeys: 6 };

interface Ctx { mid: string; siteId: string; token: string; rand: () => number }
interface Case { name: string; body: Buffer; code: string }

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
const word = (rand: () => number, n: number) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(rand() * 26)]).join('');

const validBatch = (c: Ctx, tag: string) => sampleBatch(c, tag);

const nest = (depth: number): unknown => (depth === 0 ? 1 : { n: nest(depth - 1) });

/** Each cause draws its details from the seed: where the text breaks, which field is wrong, how many, which name. */
const CAUSES: Record<string, (c: Ctx) => { body: unknown; ext?: string; code: string }> = {
  syntax: (c) => {
    const text = JSON.stringify(validBatch(c, word(c.rand, 5)));
    // Broken at a random place, with a card number right where the parser stops.
    const cut = 20 + Math.floor(c.rand() * (text.length - 40));
    return { body: `${text.slice(0, cut)} ${PAN} ${word(c.rand, 3)}`, code: 'ERR_INTAKE_SYNTAX' };
  },
  wrongMid: (c) => ({ body: { ...validBatch(c, word(c.rand, 5)), mid: randomUUID() }, code: 'ERR_INTAKE_UNAUTHORIZED' }),
  badToken: (c) => ({ body: { ...validBatch(c, word(c.rand, 5)), authorizationToken: `Bearer ${word(c.rand, 20 + Math.floor(c.rand() * 40))}` }, code: 'ERR_INTAKE_UNAUTHORIZED' }),
  headerInvalid: (c) => {
    const b = validBatch(c, word(c.rand, 5));
    const field = pick(c.rand, ['mid', 'authorizationToken', 'expiryDateUtc'] as const);
    (b as Record<string, unknown>)[field] = field === 'expiryDateUtc' ? word(c.rand, 8) : c.rand() < 0.5 ? 12345 : undefined;
    if (field === 'mid' && b.mid === undefined) delete b.mid;
    return { body: b, code: 'ERR_INTAKE_HEADER_INVALID' };
  },
  headerTooLarge: (c) => {
    const b = validBatch(c, word(c.rand, 5));
    for (let i = 0; i < LIMITS.maxHeaderKeys + 1 + Math.floor(c.rand() * 5); i++) (b as Record<string, unknown>)[`x${i}${word(c.rand, 3)}`] = i;
    return { body: b, code: 'ERR_INTAKE_HEADER_TOO_LARGE' };
  },
  tooManyEntries: (c) => {
    const b = validBatch(c, word(c.rand, 5));
    const extra = LIMITS.maxEntries + 1 + Math.floor(c.rand() * 4);
    b.requests = Array.from({ length: extra }, (_x, i) => ({ ...b.requests[0], orderId: `ORD-many-${i}`, idempotencyKey: randomUUID(), sequenceNumber: i + 1 }));
    return { body: b, code: 'ERR_INTAKE_TOO_MANY_ENTRIES' };
  },
  tooDeep: (c) => {
    const b = validBatch(c, word(c.rand, 5));
    b.requests[0]!.notes = nest(LIMITS.maxDepth + 1 + Math.floor(c.rand() * 4));
    return { body: b, code: 'ERR_INTAKE_TOO_DEEP' };
  },
  unsupportedName: (c) => ({
    body: `orderId,amount,card\n1,10.00,${PAN}\n`,
    ext: pick(c.rand, ['.csv', '.xml', '.txt', '.json.zip', `.${word(c.rand, 3)}`, '']),
    code: 'ERR_INTAKE_FILE_TYPE',
  }),
};

function generate(c: Ctx, count: number): Case[] {
  const kinds = Object.keys(CAUSES);
  return Array.from({ length: count }, (_x, i) => {
    // Every cause at least once, then drawn at random.
    const kind = i < kinds.length ? kinds[i]! : pick(c.rand, kinds);
    const made = CAUSES[kind]!(c);
    const gzip = made.ext === undefined && c.rand() < 0.3;
    const text = typeof made.body === 'string' ? made.body : JSON.stringify(made.body);
    const name = `${kind}-${i}-${word(c.rand, 4)}${made.ext ?? (gzip ? '.json.gz' : '.json')}`;
    return { name, body: gzip ? gzipSync(text) : Buffer.from(text), code: made.code };
  });
}

describe.each(DB_KINDS)('files rejected whole, uploaded over SFTP, on %s', (kind) => {
  let f: ConsoleFixture;
  let t: TestSftp;
  let queue: IngestQueue;
  let mid: string;
  let merchantToken: string;
  const local = tmp('rescued-rejected-');
  const cliDir = tmp('rescued-rejected-cli-');
  let cases: Case[] = [];
  const sizes = new Map<string, number>();
  let outbound: string;
  let inbound: string;

  beforeAll(async () => {
    f = await consoleFixture(kind);
    t = await startTestSftp(kind, {}, (file) => queue.onFileReady(file), f.tdb);
    const archive = join(t.dataDir, 'archive');
    mkdirSync(archive, { recursive: true });
    queue = createIngestQueue({
      deps: { db: f.tdb.database.db, tokens: f.tokens, cards: tokenPassThrough, mode: 'sandbox', log: silentLog, archiveDir: archive, limits: LIMITS },
      policy: { maxTries: 2, retryBaseMs: 20, retryMaxMs: 100 },
      quarantineDir: join(t.dataDir, 'quarantine'),
      outboundFor: async (username) => userDirs(t.stage.root, username).outbound,
      log: silentLog,
    });
    const m = await t.merchant('Rejections Inc');
    mid = m.mid;
    const merchant = await t.merchants.byMid(mid);
    merchantToken = (await f.tokens.issue({ merchantId: merchant.id, mid, clientId: m.creds.clientId })).token;
    const ctx: Ctx = { mid, siteId: m.creds.siteId, token: merchantToken, rand: seeded(SEED) };
    const valid = Buffer.from(JSON.stringify(validBatch(ctx, 'first')));
    cases = [{ name: 'first.json', body: valid, code: '' }, ...generate(ctx, 14), { name: 'again.json', body: valid, code: 'ERR_INTAKE_DUPLICATE_FILE' }];
    for (const c of cases) {
      writeFileSync(join(local, c.name), c.body);
      sizes.set(c.name, c.body.length);
    }
    const put = await sftp(m.login, cases.map((c) => `put ${join(local, c.name)} inbound/`));
    expect(put.status, put.stderr).toBe(0);
    ({ outbound, inbound } = userDirs(t.stage.root, m.login.username));
    await waitFor(() => cases.every((c) => readdirSync(outbound).includes(`${c.name}.ack.json`)), {
      what: 'an ack for every uploaded file',
      detail: () => `outbound: ${readdirSync(outbound).join(', ')}`,
    });
    // Every file was handed over (each has its ack): the queue's end is the last one's.
    await queue.stop();
  }, 120_000);
  afterAll(async () => {
    await queue?.stop();
    await t?.close();
    await f?.close();
    rmSync(local, { recursive: true, force: true });
    rmSync(cliDir, { recursive: true, force: true });
  });

  const rejected = () => cases.filter((c) => c.code);

  it('answers every file with an ack naming its reason, and leaves nothing in inbound/', async () => {
    expect(new Set(rejected().map((c) => c.code))).toEqual(new Set(['ERR_INTAKE_SYNTAX', 'ERR_INTAKE_UNAUTHORIZED', 'ERR_INTAKE_HEADER_INVALID', 'ERR_INTAKE_HEADER_TOO_LARGE', 'ERR_INTAKE_TOO_MANY_ENTRIES', 'ERR_INTAKE_TOO_DEEP', 'ERR_INTAKE_FILE_TYPE', 'ERR_INTAKE_DUPLICATE_FILE']));
    for (const c of rejected()) {
      const ack = JSON.parse(readFileSync(join(outbound, `${c.name}.ack.json`), 'utf8'));
      expect(ack, c.name).toMatchObject({ file: c.name, mid, status: 'rejected', batchId: null, input: 'deleted', counts: { entries: 0, accepted: 0, rejected: 0 }, error: { code: c.code } });
      if (c.code === 'ERR_INTAKE_FILE_TYPE') expect(ack.error.message).toMatch(/\.json or \.json\.gz/);
    }
    expect(JSON.parse(readFileSync(join(outbound, 'first.json.ack.json'), 'utf8'))).toMatchObject({ status: 'accepted' });
    // Nothing left to be offered again at every start (each input is removed just after its ack is published).
    await waitFor(() => readdirSync(inbound).length === 0, { what: 'inbound/ emptied', detail: () => readdirSync(inbound).join(', ') });
  });

  it('lists every rejected file with its reason, size and time: rescued batches list|show', async () => {
    const env = { RESCUED_DATA_DIR: cliDir, ...(f.tdb.url ? { DATABASE_URL: f.tdb.url } : {}) };
    const list = await runCli(['batches', 'list', '--merchant', mid, '--json', '--limit', '500'], env, f.tdb.database);
    expect(list.status, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as Array<{ fileName: string; status: string; error: { code: string; message: string } | null; bytes: number | null; receivedAt: string }>;
    expect(rows.map((r) => r.fileName).sort()).toEqual(cases.map((c) => c.name).sort());
    for (const c of rejected()) {
      const row = rows.find((r) => r.fileName === c.name)!;
      expect(row, c.name).toMatchObject({ status: 'rejected', error: { code: c.code }, bytes: sizes.get(c.name) });
      expect(Date.parse(row.receivedAt)).toBeGreaterThan(Date.now() - 600_000);
    }
    expect(rows.find((r) => r.fileName === 'first.json')).toMatchObject({ status: 'accepted', error: null, bytes: null });
    const text = await runCli(['batches', 'list', '--merchant', mid], env, f.tdb.database);
    for (const c of rejected()) expect(text.stdout).toContain(`${c.name}  rejected whole: ${c.code}`);
    const shown = rejected()[0]!;
    const show = await runCli(['batches', 'show', shown.name, '--merchant', mid], env, f.tdb.database);
    expect(show.stdout).toContain(`reason:    ${shown.code}: `);
    expect(show.stdout).toContain(`${sizes.get(shown.name)} bytes`);
    expect(`${list.stdout}${text.stdout}${show.stdout}`).not.toContain(PAN);
  });

  it('lists them to the merchant: GET /v1/batches and /v1/batches/{id}', async () => {
    const auth = { authorization: `Bearer ${merchantToken}` };
    const res = await f.app.inject({ url: '/v1/batches?limit=500', headers: auth });
    expect(res.statusCode).toBe(200);
    const batches = res.json().batches as Array<{ batchId: string; fileName: string; error: { code: string } | null; bytes: number | null }>;
    for (const c of rejected()) expect(batches.find((b) => b.fileName === c.name), c.name).toMatchObject({ status: 'rejected', error: { code: c.code, message: expect.any(String) }, bytes: sizes.get(c.name) });
    const one = batches.find((b) => b.fileName === rejected()[1]!.name)!;
    const detail = await f.app.inject({ url: `/v1/batches/${one.batchId}`, headers: auth });
    expect(detail.json()).toMatchObject({ success: true, batchId: one.batchId, status: 'rejected', error: { code: rejected()[1]!.code }, orders: null, recovered: [] });
    expect(res.body).not.toContain(PAN);
  });

  it('lists them on the console\'s batches page, with their reason', async () => {
    const page = await f.app.inject({ url: `/console/batches?merchant=${mid}`, headers: { authorization: `Bearer ${f.operatorToken}` } });
    expect(page.statusCode).toBe(200);
    for (const c of rejected()) {
      expect(page.body, c.name).toContain(`data-file="${c.name}"`);
      expect(page.body).toMatch(new RegExp(`data-file="${c.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^]*?data-code="${c.code}"`));
    }
    expect(page.body).not.toContain(PAN);
  });
});
