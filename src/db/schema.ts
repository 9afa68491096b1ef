// The single source of truth for rescued's tables. Migrations in src/db/migrations are
// generated from this file by drizzle-kit and committed; test/integration/db/migrations.test.ts
// fails when the two differ.

import { sql } from 'drizzle-orm';
import { boolean, index, integer, json, pgTable, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const MERCHANT_STATUSES = ['active', 'disabled'] as const;

export const merchants = pgTable('merchants', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** The merchant identification number of the spec (GUID), public. */
  mid: uuid('mid').notNull().unique(),
  name: text('name').notNull(),
  status: text('status', { enum: MERCHANT_STATUSES }).notNull().default('active'),
  createdAt: createdAt(),
  disabledAt: timestamp('disabled_at', { withTimezone: true }),
});

export const sites = pgTable(
  'sites',
  {
    /** The spec's siteId. */
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    url: text('url'),
    createdAt: createdAt(),
  },
  (t) => [index('sites_merchant_idx').on(t.merchantId)],
);

/** OAuth2 clients. Secrets are high-entropy random strings, so a SHA-256 digest is stored. */
export const apiClients = pgTable(
  'api_clients',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    clientId: text('client_id').notNull().unique(),
    secretHash: text('secret_hash').notNull(),
    createdAt: createdAt(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('api_clients_merchant_idx').on(t.merchantId)],
);

/** The `environment` query parameter of POST /v1/tokenize, stored as a digest. */
export const tokenizationKeys = pgTable(
  'tokenization_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    keyHash: text('key_hash').notNull().unique(),
    createdAt: createdAt(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('tokenization_keys_merchant_idx').on(t.merchantId)],
);

/**
 * One endpoint per merchant. The signing secret must be usable for HMAC, so it is kept
 * encrypted with the vault key ring, never as plain text; after a rotation the previous
 * secret keeps signing beside the new one until `previousSecretExpiresAt`.
 */
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: uuid('id').primaryKey().defaultRandom(),
  merchantId: uuid('merchant_id').notNull().unique().references(() => merchants.id),
  url: text('url'),
  secretSealed: text('secret_sealed').notNull(),
  previousSecretSealed: text('previous_secret_sealed'),
  previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
  enabled: boolean('enabled').notNull().default(true),
  disabledReason: text('disabled_reason'),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const sftpUsers = pgTable('sftp_users', {
  id: uuid('id').primaryKey().defaultRandom(),
  merchantId: uuid('merchant_id').notNull().unique().references(() => merchants.id),
  username: text('username').notNull().unique(),
  createdAt: createdAt(),
});

export const sftpKeys = pgTable(
  'sftp_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sftpUserId: uuid('sftp_user_id').notNull().references(() => sftpUsers.id),
    algorithm: text('algorithm').notNull(),
    /** base64 of the SSH wire-format public key blob. */
    publicKey: text('public_key').notNull(),
    /** OpenSSH style: SHA256:<base64 without padding>. */
    fingerprint: text('fingerprint').notNull(),
    comment: text('comment'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('sftp_keys_user_fingerprint_uq').on(t.sftpUserId, t.fingerprint)],
);

export const sftpAllowedCidrs = pgTable(
  'sftp_allowed_cidrs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sftpUserId: uuid('sftp_user_id').notNull().references(() => sftpUsers.id),
    cidr: text('cidr').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('sftp_allowed_cidrs_user_cidr_uq').on(t.sftpUserId, t.cidr)],
);


/**
 * The card vault (src/vault/). The card number and the holder's name exist only inside
 * `sealed` (AES-256-GCM under the vault key ring, bound to merchant and token); the CVV is
 * never stored. `key_id` repeats the key named inside `sealed` so `vault rotate` finds the
 * rows still under an old key by index ((key_id, id): one key's rows in id order). `fingerprint` is a keyed HMAC-SHA256 of the card
 * number: one row per card and merchant, and look-ups without decrypting.
 */
export const cards = pgTable(
  'cards',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The token handed to the merchant: random, not derived from the card. */
    token: text('token').notNull().unique(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    fingerprint: text('fingerprint').notNull(),
    sealed: text('sealed').notNull(),
    keyId: text('key_id').notNull(),
    /** First six and last four digits: what PCI DSS allows to be shown. */
    bin: text('bin').notNull(),
    last4: text('last4').notNull(),
    expMonth: smallint('exp_month').notNull(),
    expYear: smallint('exp_year').notNull(),
    brand: text('brand'),
    test: boolean('test').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('cards_merchant_fingerprint_uq').on(t.merchantId, t.fingerprint), index('cards_key_id_idx').on(t.keyId, t.id)],
);

/**
 * One ingested batch file. A file is ingested in one transaction, so a batch row exists
 * only for a file whose acceptance is decided; a file with the SHA-256 of an ingested batch
 * of the same merchant is a duplicate (rejected files may be fixed and sent again).
 */
export const batches = pgTable(
  'batches',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    fileName: text('file_name').notNull(),
    sha256: text('sha256').notNull(),
    status: text('status', { enum: ['accepted', 'partially_accepted', 'rejected'] }).notNull(),
    entryCount: integer('entry_count').notNull(),
    acceptedCount: integer('accepted_count').notNull(),
    rejectedCount: integer('rejected_count').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }).notNull().defaultNow(),
    resultsWrittenAt: timestamp('results_written_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('batches_merchant_sha256_uq').on(t.merchantId, t.sha256).where(sql`status <> 'rejected'`)],
);

/**
 * An order: one declined transaction handed to rescued, by evaluate or as a batch entry.
 * `id` is the orderSessionKey. `request` is the normalised request; it carries the card
 * token, never a card number. `orderId` and `idempotencyKey` are unique per merchant.
 */
export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    batchId: uuid('batch_id').references(() => batches.id),
    sequenceNumber: integer('sequence_number'),
    orderId: text('order_id').notNull(),
    idempotencyKey: uuid('idempotency_key').notNull(),
    kind: text('kind', { enum: ['CIT', 'MIT'] }).notNull(),
    status: text('status').notNull(),
    statusReason: text('status_reason'),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    cardToken: text('card_token').notNull(),
    cardBrand: text('card_brand'),
    cardBin: text('card_bin'),
    cardLast4: text('card_last4'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    declineCode: text('decline_code').notNull(),
    declineSource: text('decline_source').notNull(),
    // json, not jsonb: it is stored once and read whole, and the binary conversion cost a
    // third of the insert time in intake measurements (4,500 vs 6,800 rows/s per connection).
    request: json('request').notNull(),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    attemptCount: integer('attempt_count').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('orders_merchant_order_id_uq').on(t.merchantId, t.orderId),
    uniqueIndex('orders_merchant_idempotency_key_uq').on(t.merchantId, t.idempotencyKey),
    index('orders_batch_sequence_idx').on(t.batchId, t.sequenceNumber),
  ],
);
