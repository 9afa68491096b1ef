// No card number in clear at rest, whatever field of the request model it is put in and however
// it is written (security review, finding 2). Card numbers are planted in every string field of
// the model — derived from its schema (test/helpers/card-injection.ts) — and in an unknown key,
// six spellings each, through HTTP evaluate and transmit and through a batch file. Then:
// free-text fields are stored masked; identifiers refuse the request or entry with
// ERR_MODEL_CARD_NUMBER_IN_IDENTIFIER; fields a number breaks refuse it by validation; and the
// card-data sweep, with the daemon's own detector, finds no planted number in any text column,
// any file under the data folder, or the logs.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { DB_KINDS } from '../helpers/db.ts';
import { apiFixture, evaluateBody, type ApiFixture } from '../helpers/api.ts';
import { cardDataHits } from '../helpers/card-sweep.ts';
import { seeded } from '../helpers/seeded.ts';
import { PLANTED_SPELLINGS, plantedJson, plantsFor, valueAt, type Kind, type Plant } from '../helpers/card-injection.ts';
import { IDENTIFIER_PATHS, CARD_IN_IDENTIFIER } from '../../src/domain/card-data.ts';
import { createLogger } from '../../src/log.ts';
import { ingestFile } from '../../src/intake/ingest.ts';
import { orders } from '../../src/db/schema.ts';
import { maskPan } from '../../src/vault/pan.ts';
import type { CardResolver } from '../../src/intake/types.ts';

const SEED = Number(process.env.RESCUED_TEST_SEED ?? 4242);
type Obj = Record<string, unknown>;
interface Sent { kind: Kind; plants: Plant[]; status: number; body: Obj }

/** Intake's own logic under test: the entries' card tokens are taken as they are. */
const tokensAsTheyAre: CardResolver = { resolve: async (_tx, _m, methods) => methods.map((m) => ({ token: m.cardNumber })) };

const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as Obj[];

describe.each(DB_KINDS)('card numbers planted in every field of the request model, on %s', (kind) => {
  const random = seeded(SEED);
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', destination: new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }) as never });
  const dataDir = mkdtempSync(join(tmpdir(), 'rescued-card-data-'));
  const plants: Plant[] = [];
  let f: ApiFixture;
  let token: string;

  beforeAll(async () => {
    f = await apiFixture(kind, { log });
    token = await f.a.tokenOf('4111111111111111');
    for (const d of ['inbound', 'outbound', 'archive']) mkdirSync(join(dataDir, d));
  });
  afterAll(async () => {
    await f?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // One earlier attempt of the merchant's, valid, so a number planted in its text fields leaves the request valid.
  const mitBody = () => evaluateBody(token, { mit: true, tx: { priorAttempts: [{ timestampUtc: '2026-11-01T10:00:00Z', responseCode: '05', merchantAdviceCode: '02' }] } });
  const send = async (path: string, k: Kind, spelling: (typeof PLANTED_SPELLINGS)[number]): Promise<Sent> => {
    const ps = plantsFor(k, spelling, random);
    plants.push(...ps);
    const res = await f.t.app.inject({ method: 'POST', url: path, payload: plantedJson({ ...mitBody(), mid: f.a.mid, siteId: f.a.siteId }, ps), headers: { authorization: f.a.bearer, 'content-type': 'application/json' } });
    return { kind: k, plants: ps, status: res.statusCode, body: res.json() as Obj };
  };
  const refusedFields = (body: Obj) => ((body.errors ?? []) as Array<{ field: string; code: string }>).filter((e) => e.code === CARD_IN_IDENTIFIER).map((e) => e.field);

  it('derives dozens of string fields from the schema, identifiers among them', () => {
    const all = ['text', 'identifier', 'refused'].flatMap((k) => plantsFor(k as Kind, 'plain', seeded(1)).map((p) => p.path));
    expect(all.length).toBeGreaterThan(70);
    expect(all).toEqual(expect.arrayContaining(['transaction.priorAttempts[].responseCode', 'transaction.priorAttempts[].timestampUtc', 'transaction.merchantAdviceCode', 'orderItems[].description', 'orderItems[].name', 'transaction.responseDescription', 'payer.id', 'billingInformation.addressLine2', 'orderId', 'additionalFields[].key', 'additionalFields[].value']));
    expect(IDENTIFIER_PATHS).toEqual(expect.arrayContaining(['orderId', 'payer.id', 'idempotencyKey', 'transaction.id', 'subscription.schemeTransactionId']));
  });

  it('evaluate stores every free-text field masked, refuses identifiers and broken fields, in every spelling', async () => {
    for (const spelling of PLANTED_SPELLINGS) {
      const text = await send('/v1/evaluate', 'text', spelling);
      expect(text.status, JSON.stringify(text.body)).toBe(200);
      const [row] = await f.t.tdb.database.db.select({ request: orders.request }).from(orders).where(eq(orders.id, text.body.orderSessionKey as string));
      for (const p of text.plants.filter((x) => x.path !== '(unknown key)')) expect(String(valueAt(row!.request, p.path)), `${spelling} ${p.path}`).toContain(maskPan(p.pan));
      expect(JSON.stringify(text.body.warnings)).toContain(maskPan(text.plants.at(-1)!.pan));

      const ids = await send('/v1/evaluate', 'identifier', spelling);
      expect(ids.status).toBe(400);
      expect(refusedFields(ids.body).sort()).toEqual(ids.plants.map((p) => p.path).sort());

      const broken = await send('/v1/evaluate', 'refused', spelling);
      expect(broken.status).toBe(400);
    }
    const count = rowsOf(await f.t.tdb.database.db.execute(sql`select count(*)::int as n from orders`))[0]!.n;
    expect(count).toBe(PLANTED_SPELLINGS.length);
  });

  it('transmit stores its record masked and refuses identifiers holding a number', async () => {
    for (const spelling of PLANTED_SPELLINGS) {
      expect((await send('/v1/transmit', 'text', spelling)).status).toBe(202);
      const ids = await send('/v1/transmit', 'identifier', spelling);
      expect(ids.status).toBe(400);
      expect(refusedFields(ids.body).sort()).toEqual(ids.plants.map((p) => p.path).sort());
      // A field a number breaks is dropped from the record (transmit is lenient), never stored.
      expect((await send('/v1/transmit', 'refused', spelling)).status).toBe(202);
    }
    await f.t.api.transmits.flush();
    const count = rowsOf(await f.t.tdb.database.db.execute(sql`select count(*)::int as n from transmits`))[0]!.n;
    expect(count).toBe(PLANTED_SPELLINGS.length * 2);
  });

  it('a batch file stores its text entries masked, refuses the others in the ack, and is not archived', async () => {
    const entries: string[] = [];
    const kinds: Kind[] = [];
    const planted: Plant[][] = [];
    for (const spelling of PLANTED_SPELLINGS) {
      for (const k of ['text', 'identifier', 'refused'] as const) {
        const ps = plantsFor(k, spelling, random);
        plants.push(...ps);
        kinds.push(k);
        planted.push(ps);
        entries.push(plantedJson({ ...mitBody(), mid: f.a.mid, siteId: f.a.siteId, sequenceNumber: entries.length + 1, idempotencyKey: randomUUID() }, ps));
      }
    }
    const expiry = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const name = 'planted.json';
    const path = join(dataDir, 'inbound', name);
    writeFileSync(path, `{"mid":"${f.a.mid}","authorizationToken":"${f.a.bearer}","expiryDateUtc":"${expiry}","requests":[${entries.join(',\n')}]}`);
    const deps = { db: f.t.tdb.database.db, tokens: f.t.tokens, cards: tokensAsTheyAre, mode: 'sandbox' as const, log: log.child({ component: 'intake' }), archiveDir: join(dataDir, 'archive'), chunkSize: 2 };
    const res = await ingestFile(deps, { merchantId: f.a.merchantId, mid: f.a.mid, path, name, outboundDir: join(dataDir, 'outbound') });
    expect(res.input).toBe('deleted');
    type Row = { sequenceNumber: number; orderId: string | null; errors?: Array<{ field: string; code: string }>; sameErrorsAs?: number };
    const ack = JSON.parse(readFileSync(res.ackPath, 'utf8')) as { accepted: Obj[]; rejected: Row[] };
    expect(ack.accepted.length).toBe(PLANTED_SPELLINGS.length);
    for (const a of ack.accepted as Array<{ sequenceNumber: number; orderSessionKey: string }>) {
      const [row] = await f.t.tdb.database.db.select({ request: orders.request }).from(orders).where(eq(orders.id, a.orderSessionKey));
      for (const p of planted[a.sequenceNumber - 1]!.filter((x) => x.path !== '(unknown key)')) expect(String(valueAt(row!.request, p.path)), `${p.spelling} ${p.path}`).toContain(maskPan(p.pan));
    }
    expect(ack.rejected.length).toBe(PLANTED_SPELLINGS.length * 2);
    // A row whose errors are those of an earlier row names it (src/intake/ack-rejected.ts).
    const errorsOf = (r: Row) => r.errors ?? ack.rejected.find((x) => x.sequenceNumber === r.sameErrorsAs)!.errors!;
    for (const r of ack.rejected.filter((x) => kinds[x.sequenceNumber - 1] === 'identifier')) {
      expect(errorsOf(r).filter((e) => e.code === CARD_IN_IDENTIFIER).map((e) => e.field).sort()).toEqual([...IDENTIFIER_PATHS].sort());
      expect(r.orderId).toMatch(/\*{4}/);
    }
  });

  it('leaves no planted number in clear in any text column, file of the data folder or log line', async () => {
    // A hit names the last four digits: the fields planted with such a number say where it came from.
    const planters = (hit: string) => plants.filter((p) => hit.includes(`card ending ${p.pan.slice(-4)} `)).map((p) => `${p.kind} ${p.path} (${p.spelling})`);
    const hits = await cardDataHits({ dataDir, database: f.t.tdb.database, logs: lines.join(''), pans: plants.map((p) => p.pan) });
    expect(hits.map((h) => `${h} ← ${planters(h).join(' or ')}`)).toEqual([]);
    expect(plants.length).toBeGreaterThan(400);
  });
});
