// The single source of truth for rescued's tables. Migrations in src/db/migrations are
// generated from this file by drizzle-kit and committed; test/integration/db/migrations.test.ts
// fails when the two differ.

import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

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

