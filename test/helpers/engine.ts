// A merchant with a sandbox vault over a fresh test database, and orders inserted directly
// (as intake or evaluate would leave them), for the processor and engine tests.
import { randomUUID } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema } from '../../src/config/schema.ts';
import type { EngineConfig } from '../../src/engine/index.ts';
import type { Db } from '../../src/db/client.ts';
import { orders } from '../../src/db/schema.ts';
import { createMerchantService } from '../../src/merchants/service.ts';
import { keyRingFrom, type KeyRing } from '../../src/vault/cipher.ts';
import { createVault, type Vault } from '../../src/vault/service.ts';
import { sandboxTestCards, type TestCard } from '../../src/vault/test-cards.ts';
import { freshDatabase, type DbKind, type TestDatabase } from './db.ts';
import { key32 } from './keys.ts';

export interface EngineFixture {
  tdb: TestDatabase;
  db: Db;
  vault: Vault;
  ring: KeyRing;
  merchantId: string;
  mid: string;
  /** The SFTP username of the merchant (outbound folder name). */
  username: string;
  /** The vault token of a test card (tokenized once, then reused). */
  tokenOf(number: string): Promise<string>;
  close(): Promise<void>;
}

export async function engineFixture(kind: DbKind, opts: { poolSize?: number } = {}): Promise<EngineFixture> {
  const tdb = await freshDatabase(kind, { poolSize: opts.poolSize });
  const db = tdb.database.db;
  const ring = keyRingFrom({ v1: key32() }, 'v1');
  const merchants = createMerchantService({ db, vault: ring, mode: 'sandbox' });
  const creds = await merchants.add({ name: 'Engine Test' });
  const merchantId = (await merchants.byMid(creds.mid)).id;
  const vault = createVault({ db, ring, fingerprintKey: key32(), mode: 'sandbox', testCards: sandboxTestCards() });
  const tokens = new Map<string, string>();
  return {
    tdb,
    db,
    vault,
    ring,
    merchantId,
    mid: creds.mid,
    username: creds.sftpUsername,
    async tokenOf(number) {
      let token = tokens.get(number);
      if (!token) {
        token = (await vault.tokenize(merchantId, { number, month: 12, year: 2035, firstName: 'Test', lastName: 'Payer' })).card.token;
        tokens.set(number, token);
      }
      return token;
    },
    close: () => tdb.dispose(),
  };
}

export interface OrderSpec {
  card: TestCard;
  token: string;
  merchantId: string;
  createdAt: Date;
  expiresAt: Date;
  status?: 'SUBMITTED' | 'PENDING';
  nextAttemptAt?: Date;
  batchId?: string;
  sequenceNumber?: number;
  /** The original decline; default: the card's own decline code, else 05. */
  declineCode?: string;
  declineSource?: string;
  timezoneUtcOffset?: number;
  amount?: number;
  /** The order's additionalFields (routing hints such as processorAccount). */
  additionalFields?: { key: string; value: string }[];
}

/** The first decline code a test card would give, as the merchant's original decline. */
export function originalDecline(card: TestCard): string {
  const o = card.processor;
  if (o.outcome === 'decline') return o.responseCode;
  if ('declineCode' in o) return o.declineCode;
  return '05';
}

export async function insertTestOrders(db: Db, specs: OrderSpec[]): Promise<string[]> {
  const rows = specs.map((s) => {
    const orderId = `ORD-${randomUUID()}`;
    const declineCode = s.declineCode ?? originalDecline(s.card);
    const request = {
      orderId,
      isMIT: true,
      transaction: { responseCode: declineCode, responseCodeSource: s.declineSource ?? 'NA', timezoneUtcOffset: s.timezoneUtcOffset ?? 0, amount: s.amount ?? 1999, currency: 'USD' },
      paymentMethod: { cardNumber: s.token, token: true, cardBrand: s.card.brand },
      ...(s.additionalFields ? { additionalFields: s.additionalFields } : {}),
    };
    return {
      id: randomUUID(), merchantId: s.merchantId, batchId: s.batchId ?? null, sequenceNumber: s.sequenceNumber ?? null, orderId,
      idempotencyKey: randomUUID(), kind: 'MIT' as const, status: s.status ?? 'SUBMITTED', amount: s.amount ?? 1999, currency: 'USD',
      cardToken: s.token, cardBrand: s.card.brand, cardBin: s.card.number.slice(0, 6), cardLast4: s.card.number.slice(-4),
      expiresAt: s.expiresAt, declineCode, declineSource: s.declineSource ?? 'NA', request,
      nextAttemptAt: s.nextAttemptAt ?? s.createdAt, createdAt: s.createdAt, updatedAt: s.createdAt,
    };
  });
  for (let i = 0; i < rows.length; i += 500) await db.insert(orders).values(rows.slice(i, i + 500));
  return rows.map((r) => r.id);
}

/** The engine's configuration as the schema's defaults give it (plus the processor's queue keys). */
export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  ...(Value.Default(ConfigSchema.properties.engine, {}) as EngineConfig),
  ...(Value.Default(ConfigSchema.properties.processor, {}) as Pick<EngineConfig, 'concurrency' | 'ratePerSecond'>),
} as EngineConfig;

/** The default engine configuration with some keys changed. */
export function engineConfig(over: Partial<EngineConfig> = {}): EngineConfig {
  return { ...DEFAULT_ENGINE_CONFIG, ...over };
}
