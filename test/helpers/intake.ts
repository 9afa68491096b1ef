// A merchant, a token and intake dependencies over a fresh test database.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { createTokenService } from '../../src/auth/tokens.ts';
import { isClientActive } from '../../src/db/queries/client-status.ts';
import { createMerchantService, type MerchantCredentials } from '../../src/merchants/service.ts';
import { keyRingFrom } from '../../src/vault/cipher.ts';
import type { CardResolver } from '../../src/intake/types.ts';
import type { IntakeDeps, IntakeFile } from '../../src/intake/types.ts';
import { freshDatabase, silentLog, type DbKind, type TestDatabase } from './db.ts';
import { key32 } from './keys.ts';

const SAMPLES = join(import.meta.dirname, '../../samples/batches');
/** The samples' siteId: a file's entries must name one of its merchant's sites. */
export const SAMPLE_SITE_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** Accepts `tok_` tokens as they are: intake's own logic under test, not the vault's. */
export const tokenPassThrough: CardResolver = {
  async resolve(_tx, _merchantId, methods) {
    return methods.map((m) => (m.cardNumber.startsWith('tok_') ? { token: m.cardNumber } : { errors: [{ field: 'paymentMethod.cardNumber', code: 'ERR_TEST_CARD', message: 'unknown token' }] }));
  },
};

export interface IntakeFixture {
  tdb: TestDatabase;
  deps: IntakeDeps;
  merchant: MerchantCredentials & { merchantId: string };
  accessToken: string;
  root: string;
  /** A sample (or any text) with the placeholders filled in, dropped into inbound/. */
  drop(name: string, text: string, opts?: { gzip?: boolean }): IntakeFile;
  sample(name: string): string;
  /** A sample with fresh orderIds and idempotency keys (tagged), so it is not a duplicate. */
  variant(name: string, tag: string): string;
  /** The text as `drop` writes it. */
  filled(text: string): string;
  close(): Promise<void>;
}

export async function intakeFixture(kind: DbKind, cards: CardResolver = tokenPassThrough): Promise<IntakeFixture> {
  const tdb = await freshDatabase(kind);
  const db = tdb.database.db;
  const tokens = createTokenService({ signingKeys: { k1: key32() }, activeSigningKeyId: 'k1', issuer: 'rescued', lifetimeSeconds: 600, isClientActive: (merchantId, clientId) => isClientActive(db, merchantId, clientId) });
  const merchants = createMerchantService({ db, vault: keyRingFrom({ v1: key32() }, 'v1'), mode: 'sandbox' });
  const creds = await merchants.add({ name: 'Intake Test' });
  const merchantId = (await merchants.byMid(creds.mid)).id;
  const { token } = await tokens.issue({ merchantId, mid: creds.mid, clientId: creds.clientId });
  const root = mkdtempSync(join(tmpdir(), 'rescued-intake-'));
  for (const d of ['inbound', 'outbound', 'archive']) mkdirSync(join(root, d));
  const deps: IntakeDeps = { db, tokens, cards, mode: 'sandbox', log: silentLog, archiveDir: join(root, 'archive'), chunkSize: 2, tryLock: (key) => tdb.database.tryLock(key) };
  const fill = (text: string) =>
    text.replaceAll('00000000-0000-4000-8000-000000000000', creds.mid).replaceAll(SAMPLE_SITE_ID, creds.siteId).replaceAll('REPLACE_WITH_ACCESS_TOKEN', token).replaceAll('tok_REPLACE_WITH_CARD_TOKEN', 'tok_test_card');
  return {
    tdb,
    deps,
    merchant: { ...creds, merchantId },
    accessToken: token,
    root,
    sample: (name) => readFileSync(join(SAMPLES, name), 'utf8'),
    variant: (name, tag) =>
      readFileSync(join(SAMPLES, name), 'utf8')
        .replace(/"ORD-[a-z]+-/g, `"ORD-${tag}-`)
        .replace(/"idempotencyKey": "[^"]+"/g, () => `"idempotencyKey": "${randomUUID()}"`),
    filled: (text) => fill(text),
    drop(name, text, opts = {}) {
      const path = join(root, 'inbound', name);
      writeFileSync(path, opts.gzip ? gzipSync(fill(text)) : fill(text));
      return { merchantId, mid: creds.mid, path, name, outboundDir: join(root, 'outbound') };
    },
    async close() {
      await tdb.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** An intake fixture for the enclosing describe block: made before its tests, removed after. */
export function useIntakeFixture(kind: DbKind, cards?: CardResolver): () => IntakeFixture {
  let f: IntakeFixture | undefined;
  beforeAll(async () => {
    f = await intakeFixture(kind, cards);
  });
  afterAll(async () => f?.close());
  return () => f!;
}

export interface AckRow {
  sequenceNumber: number;
  orderId: string | null;
  errors?: Array<{ field: string; code: string; message: string }>;
  sameErrorsAs?: number;
}

/** An ack's rejected rows with each `sameErrorsAs` replaced by the errors it names. */
export function expandRejected(rows: AckRow[]): Array<AckRow & { errors: NonNullable<AckRow['errors']> }> {
  const bySeq = new Map(rows.filter((r) => r.errors).map((r) => [r.sequenceNumber, r.errors!]));
  return rows.map((r) => ({ ...r, errors: r.errors ?? bySeq.get(r.sameErrorsAs!)! }));
}

/**
 * The valid sample as a batch of this merchant, with fresh orderIds (tagged) and idempotency
 * keys, and times relative to now (a decline an hour ago, a deadline in a month).
 */
export function sampleBatch(o: { mid: string; siteId: string; token: string }, tag: string): Record<string, unknown> & { requests: Array<Record<string, unknown>> } {
  const text = readFileSync(join(SAMPLES, 'valid.json'), 'utf8')
    .replaceAll('00000000-0000-4000-8000-000000000000', o.mid).replaceAll(SAMPLE_SITE_ID, o.siteId)
    .replaceAll('REPLACE_WITH_ACCESS_TOKEN', o.token).replaceAll('tok_REPLACE_WITH_CARD_TOKEN', 'tok_test_card')
    .replace(/"ORD-[a-z]+-/g, `"ORD-${tag}-`).replace(/"idempotencyKey": "[^"]+"/g, () => `"idempotencyKey": "${randomUUID()}"`)
    .replace(/"timestampUtc": "[^"]+"/g, `"timestampUtc": "${new Date(Date.now() - 3_600_000).toISOString()}"`)
    .replace(/"expiryDateUtc": "[^"]+"/g, `"expiryDateUtc": "${new Date(Date.now() + 30 * 86_400_000).toISOString()}"`);
  return JSON.parse(text);
}
