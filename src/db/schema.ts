// The single source of truth for rescued's tables. Migrations in src/db/migrations are
// generated from this file by drizzle-kit and committed; test/integration/db/migrations.test.ts
// fails when the two differ.

import { sql } from 'drizzle-orm';
import { bigint, boolean, doublePrecision, index, integer, json, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { GATEWAYS } from '../gateways.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const MERCHANT_STATUSES = ['active', 'disabled'] as const;

export const merchants = pgTable('merchants', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** The merchant identification number of the spec (GUID), public. */
  mid: uuid('mid').notNull().unique(),
  name: text('name').notNull(),
  status: text('status', { enum: MERCHANT_STATUSES }).notNull().default('active'),
  /**
   * Whether an MIT whose decline means the card must change waits for an updated card until its
   * deadline (true) or ends EXPIRED at once (false); null: the configuration's
   * engine.awaitUpdatedCard (docs/engine.md "Card updates").
   */
  awaitUpdatedCard: boolean('await_updated_card'),
  createdAt: createdAt(),
  disabledAt: timestamp('disabled_at', { withTimezone: true }),
  /**
   * Opt-in (`rescued merchant set <mid> --cascade-other-cards on`): an order whose card ends
   * hard continues on the payer's other stored cards (docs/engine.md, "The payer's other cards").
   */
  cascadeOtherCards: boolean('cascade_other_cards').notNull().default(false),
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

/**
 * A merchant's own gateway account, through which its retries are charged (DESIGN.md §3
 * "Processors"). The credentials are sealed under the vault key ring, bound to the row's id,
 * and follow `vault rotate`. A removed account stays for the attempts that name it.
 */
export const processorAccounts = pgTable(
  'processor_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    type: text('type', { enum: GATEWAYS }).notNull(),
    label: text('label').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    credentialsSealed: text('credentials_sealed').notNull(),
    createdAt: createdAt(),
    removedAt: timestamp('removed_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('processor_accounts_label_uq').on(t.merchantId, t.label).where(sql`removed_at is null`),
    uniqueIndex('processor_accounts_default_uq').on(t.merchantId).where(sql`is_default and removed_at is null`),
  ],
);

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
    /**
     * The last time the card was presented (tokenized, or a full number at evaluate or in a
     * batch), to the day: the retention rule keeps a card presented within retention.cardDays
     * (src/db/queries/purge-cards.ts). Not `updated_at`, which tells the merchant when the
     * card's details changed.
     */
    lastTokenizedAt: timestamp('last_tokenized_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * The merchant's id of the payer the card was last tokenized for (tokenize's `payer.id`),
     * and when: the payer's other cards, newest first, are what an order may cascade to
     * (src/vault/payer-cards.ts). Null: no payer named.
     */
    payerId: text('payer_id'),
    payerLinkedAt: timestamp('payer_linked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('cards_merchant_fingerprint_uq').on(t.merchantId, t.fingerprint),
    index('cards_key_id_idx').on(t.keyId, t.id),
    index('cards_payer_idx').on(t.merchantId, t.payerId, t.payerLinkedAt),
  ],
);

/**
 * One ingested batch file. A batch row exists only for a file whose acceptance is decided:
 * a small file is ingested in one transaction; a large one (src/intake/staged.ts) is read
 * whole first, then its row is committed as `ingesting` and its entries a chunk at a time,
 * `accepted_count` + `rejected_count` saying how many entries are committed (where a resumed
 * ingest starts) and `entry_count` how many the file holds; its last transaction sets the
 * final status. A file with the SHA-256 of an ingested (or ingesting) batch of the same
 * merchant is a duplicate (rejected files may be fixed and sent again).
 */
export const batches = pgTable(
  'batches',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    fileName: text('file_name').notNull(),
    sha256: text('sha256').notNull(),
    status: text('status', { enum: ['ingesting', 'accepted', 'partially_accepted', 'rejected'] }).notNull(),
    entryCount: integer('entry_count').notNull(),
    acceptedCount: integer('accepted_count').notNull(),
    rejectedCount: integer('rejected_count').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }).notNull().defaultNow(),
    resultsWrittenAt: timestamp('results_written_at', { withTimezone: true }),
    /**
     * A file rejected whole (not JSON, a bad header, a wrong mid, a limit, an unsupported
     * name, set aside): the ack's error code and message, so the listings say why. Null for
     * a file whose entries were decided one by one. Never card data: the messages name
     * positions and fields, not values.
     */
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    /** The file's size as received (bytes), recorded with a whole-file rejection. */
    fileBytes: bigint('file_bytes', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('batches_merchant_sha256_uq').on(t.merchantId, t.sha256).where(sql`status <> 'rejected'`),
    // The batch-finishing sweep reads only batches still waiting for their results file.
    index('batches_results_pending_idx').on(t.receivedAt).where(sql`results_written_at is null and status <> 'rejected'`),
  ],
);

/**
 * A batch file while its transaction is open: the batch row and its orders become visible
 * only at the commit, so this row is what `batches list|show` and GET /v1/batches show until
 * then. It is written beside the file's transaction, on another connection, so other
 * sessions see it move (PostgreSQL only: on PGlite's one session every reader waits for the
 * file anyway). The commit removes it; a rollback leaves it to the ingest's clean-up, and
 * one left by a crash is replaced when the file, still in inbound/, is ingested again.
 */
export const batchProgress = pgTable('batch_progress', {
  /** The id the batch will have. */
  batchId: uuid('batch_id').primaryKey(),
  merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
  fileName: text('file_name').notNull(),
  /** Entries in the file, counted by pass one. */
  entryCount: integer('entry_count').notNull(),
  /** Entries decided so far by pass two. */
  acceptedCount: integer('accepted_count').notNull().default(0),
  rejectedCount: integer('rejected_count').notNull().default(0),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A batch file whose ingest began and has not ended, written before its transaction opens
 * (that one rolls back with a crash, this does not). A file with `starts` past two was being
 * ingested when the process died twice: it is quarantined instead of read a third time, so
 * a file that kills the daemon cannot do it at every start (src/intake/crash-guard.ts). The
 * size and modification time tell a new upload under the same name from the same file.
 */
export const intakeStarts = pgTable(
  'intake_starts',
  {
    merchantId: uuid('merchant_id').notNull(),
    fileName: text('file_name').notNull(),
    fileBytes: bigint('file_bytes', { mode: 'number' }).notNull(),
    fileModifiedAt: timestamp('file_modified_at', { withTimezone: true }).notNull(),
    starts: integer('starts').notNull(),
    firstStartedAt: timestamp('first_started_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.fileName] })],
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
    // No foreign keys on merchant_id and batch_id: only rescued writes orders, always with the
    // ids of rows it created or read in the same transaction; merchants are never deleted, and
    // a batch only by the purge once none of its orders is left. The two per-row FK checks
    // doubled the cost of a bulk insert (measured on PostgreSQL 15 here: 50,000 rows in 1.4 s
    // with them, 0.65 s without).
    merchantId: uuid('merchant_id').notNull(),
    batchId: uuid('batch_id'),
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
    /**
     * The original decline as the card networks count it (docs/engine.md, "What the card's
     * windows count"): its time (transaction.timestampUtc, never after the order came in; null
     * on orders older than the column: created_at), its Mastercard advice code, and the
     * merchant's own earlier attempts on the order, compactly (src/db/prior-attempts.ts; null:
     * none). Kept out of `request` so the card's windows read them from these columns alone.
     */
    declinedAt: timestamp('declined_at', { withTimezone: true }),
    declineAdvice: text('decline_advice'),
    priorAttempts: json('prior_attempts'),
    // json, not jsonb: it is stored once and read whole, and the binary conversion cost a
    // third of the insert time in intake measurements (4,500 vs 6,800 rows/s per connection).
    request: json('request').notNull(),
    /** When the engine should next look at the order (SUBMITTED: at once; PENDING: the planned attempt). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    /** The planner's reason for the next attempt, or for the stop. */
    planReason: text('plan_reason'),
    attemptCount: integer('attempt_count').notNull().default(0),
    /** The engine instance holding the order while an attempt is in flight, and until when. */
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    /** The processor's reference of the approving attempt. */
    confirmationId: text('confirmation_id'),
    refundedAmount: integer('refunded_amount').notNull().default(0),
    /**
     * Card updates (docs/engine.md "Card updates"). `credential`: the key the order is charged
     * and counted under now, when it is no longer `card_token` (a merchant's new vault token, or
     * a gateway-updated credential `<token>~au:<…>`); attempts carry it in their card_token, so
     * the networks' counters of the new credential start on their own. `card_updates`: every
     * update, oldest first (src/engine/card-update.ts). `awaiting_card`: the decline that made
     * the order wait for an updated card, kept after the wait ends. `recovered_by`: what
     * recovered an APPROVED order (retry, merchant_update, account_updater, other_card).
     */
    credential: text('credential'),
    cardUpdates: json('card_updates'),
    awaitingCard: json('awaiting_card'),
    recoveredBy: text('recovered_by'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /**
     * The cards this order ended on before moving to the payer's next card (the cascade,
     * src/engine/cascade.ts): `[{token, last4, reason, at}]`, oldest first; null: none. None of
     * them is charged again for this order.
     */
    endedCards: json('ended_cards'),
  },
  (t) => [
    uniqueIndex('orders_merchant_order_id_uq').on(t.merchantId, t.orderId),
    uniqueIndex('orders_merchant_idempotency_key_uq').on(t.merchantId, t.idempotencyKey),
    index('orders_batch_sequence_idx').on(t.batchId, t.sequenceNumber),
    // A merchant's orders newest first, a page at a time (GET /v1/orders, `orders list`): the
    // keyset (created_at, id) walks this index from the cursor instead of sorting every order
    // of the merchant for each page. id breaks the tie between the orders of one batch, which
    // share their transaction's created_at.
    index('orders_merchant_created_idx').on(t.merchantId, t.createdAt, t.id),
    // The card's windows read every order of a card at a merchant in the last 30 days (each
    // one's original decline and earlier attempts count), as attempts_card_idx serves attempts.
    index('orders_card_idx').on(t.merchantId, t.cardToken, t.createdAt),
    // The engine's claim and the sweeps read only these partial indexes, so their cost does
    // not grow with the number of orders that are final or not due.
    index('orders_due_idx').on(t.nextAttemptAt).where(sql`status in ('SUBMITTED', 'PENDING')`),
    // The claim's own: PENDING orders by due time. Through orders_due_idx, a claim behind a large
    // file still being planned walked every SUBMITTED row due before the first PENDING one
    // (3.5 s a claim with 920,000 SUBMITTED; 17 ms with this index).
    index('orders_pending_due_idx').on(t.nextAttemptAt).where(sql`status = 'PENDING'`),
    index('orders_lease_idx').on(t.leaseExpiresAt).where(sql`status = 'PROCESSING'`),
    index('orders_open_expiry_idx').on(t.expiresAt).where(sql`status in ('SUBMITTED', 'PENDING', 'PROCESSING', 'CHALLENGE')`),
    // "Is any order of this batch still open?", asked after answers at most once a second to
    // write the results file right after the batch's last order (src/engine/batch-finish.ts):
    // one probe here, where orders_batch_sequence_idx walked the batch's final orders, most
    // of a million-order batch near its end.
    index('orders_open_batch_idx').on(t.batchId).where(sql`batch_id is not null and status in ('SUBMITTED', 'PENDING', 'PROCESSING', 'CHALLENGE')`),
    // The purge (src/retention/): the vault rule asks whether an open or recent order still
    // needs a card (orders_card_idx above), and the order class walks final orders oldest
    // first; neither scans the table.
    index('orders_finished_idx').on(t.finishedAt).where(sql`finished_at is not null`),
  ],
);

export const ATTEMPT_STATUSES = ['in_flight', 'approved', 'declined', 'error', 'voided'] as const;

/**
 * One attempt at the processor for an order. `idempotencyKey` is `<orderSessionKey>:<attemptNo>`:
 * the processor answers a repeated key with its first result, so a crash between its answer
 * and our commit never charges twice. Card-level network caps count these rows by
 * (merchant, card token) across orders.
 */
export const attempts = pgTable(
  'attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderSessionKey: uuid('order_session_key').notNull().references(() => orders.id),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    cardToken: text('card_token').notNull(),
    attemptNo: integer('attempt_no').notNull(),
    idempotencyKey: text('idempotency_key').notNull().unique(),
    status: text('status', { enum: ATTEMPT_STATUSES }).notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    responseCode: text('response_code'),
    adviceCode: text('advice_code'),
    declineClass: text('decline_class'),
    reason: text('reason'),
    processorRef: text('processor_ref'),
    latencyMs: integer('latency_ms'),
    /** Why this attempt was made at this time (the planner's retry reason). */
    planReason: text('plan_reason'),
    /** The merchant's gateway account it went through (null: the sandbox processor). */
    accountId: uuid('account_id'),
    /** Why that account: explicit (additionalFields), decliner (the gateway that declined), default, sandbox. */
    route: text('route'),
    /** The gateway's own code and message, as sent. */
    rawCode: text('raw_code'),
    rawMessage: text('raw_message'),
    networkTransactionId: text('network_transaction_id'),
    /** The call's outcome became unknown (timeout, reset, 5xx) at this time; cleared when reconciled. */
    unknownSince: timestamp('unknown_since', { withTimezone: true }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('attempts_order_no_uq').on(t.orderSessionKey, t.attemptNo),
    index('attempts_card_idx').on(t.merchantId, t.cardToken, t.startedAt),
  ],
);

/**
 * The sandbox processor's memory (src/processors/sandbox.ts): what it answered to each
 * idempotency key, kept in the database so a repeated key after a crash gets the same answer,
 * as a real processor's idempotency would give.
 */
export const processorCalls = pgTable(
  'processor_calls',
  {
    idempotencyKey: text('idempotency_key').primaryKey(),
    operation: text('operation', { enum: ['authorize', 'refund', 'void'] }).notNull(),
    /** The order (orderSessionKey) the call belongs to. */
    reference: text('reference').notNull(),
    approved: boolean('approved').notNull(),
    response: json('response').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('processor_calls_reference_idx').on(t.reference, t.createdAt)],
);

/** Refunds are records on an APPROVED order; their sum never exceeds the captured amount. */
export const refunds = pgTable(
  'refunds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orderSessionKey: uuid('order_session_key').notNull().references(() => orders.id),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    amount: integer('amount').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    status: text('status', { enum: ['SUCCESS', 'FAILED'] }).notNull(),
    message: text('message'),
    processorRef: text('processor_ref'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('refunds_order_key_uq').on(t.orderSessionKey, t.idempotencyKey)],
);

/**
 * HTTP idempotency (DESIGN.md §2): the first request with a key stores its body digest and,
 * once answered, its response; the same key and body replays it, another body is 422, and a
 * key whose first request is still running is 409. Pruned by a sweep after `expiresAt`.
 */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    key: text('key').notNull(),
    route: text('route').notNull(),
    requestHash: text('request_hash').notNull(),
    state: text('state', { enum: ['in_flight', 'done'] }).notNull(),
    statusCode: integer('status_code'),
    response: json('response'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.key] }), index('idempotency_records_expires_idx').on(t.expiresAt)],
);

/** POST /v1/transmit: what the merchant saw, kept to learn its approval patterns. */
export const transmits = pgTable(
  'transmits',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    orderId: text('order_id').notNull(),
    approved: boolean('approved').notNull(),
    amount: integer('amount'),
    currency: text('currency'),
    cardBin: text('card_bin'),
    cardBrand: text('card_brand'),
    cardType: text('card_type'),
    /** The payer's local hour (0–23) and day of month (1–31) of the transaction. */
    localHour: smallint('local_hour'),
    localDayOfMonth: smallint('local_day_of_month'),
    request: json('request').notNull(),
    createdAt: createdAt(),
    /**
     * The card as the card's windows know it (docs/engine.md "What the card's windows count"):
     * the vault token the transmit named, or the token of the card its number matches in the
     * vault; null when neither. The merchant's own authorizations on a card count against the
     * networks' limits like rescued's.
     */
    cardToken: text('card_token'),
    /** The keyed fingerprint of a full number sent (never the number): matches a card tokenized later. */
    cardFingerprint: text('card_fingerprint'),
    /** transaction.timestampUtc: when the merchant's payment was authorized (or declined). */
    authorizedAt: timestamp('authorized_at', { withTimezone: true }),
    /** 'CIT' or 'MIT' (isMIT): Visa counts them apart. */
    initiator: text('initiator'),
    /** transaction.responseCodeSource, for the earlier tries' codes. */
    declineSource: text('decline_source'),
    /** transaction.priorAttempts: the merchant's tries before this one, as orders.prior_attempts. */
    priorAttempts: json('prior_attempts'),
  },
  (t) => [
    index('transmits_merchant_idx').on(t.merchantId, t.createdAt),
    index('transmits_card_idx').on(t.merchantId, t.cardToken, t.authorizedAt).where(sql`card_token is not null`),
    index('transmits_fingerprint_idx').on(t.merchantId, t.cardFingerprint, t.authorizedAt).where(sql`card_fingerprint is not null`),
  ],
);

/** The per-merchant model's counters: approvals and totals by dimension ('hour', 'day', 'bin', 'card_type') and bucket. */
export const merchantModelStats = pgTable(
  'merchant_model_stats',
  {
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    dimension: text('dimension').notNull(),
    bucket: text('bucket').notNull(),
    approvals: integer('approvals').notNull().default(0),
    total: integer('total').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.dimension, t.bucket] })],
);

/** The learned tables' key (but the merchant) and counts; a function, so each table gets its own column builders. */
const learnedCounts = () => ({
  family: text('family').notNull(),
  brand: text('brand').notNull(),
  /** The card's first six digits, '' when the order did not give them. */
  bin: text('bin').notNull(),
  weekday: smallint('weekday').notNull(),
  localHour: smallint('local_hour').notNull(),
  dayBucket: smallint('day_bucket').notNull(),
  attempts: integer('attempts').notNull().default(0),
  approvals: integer('approvals').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Learned timing (docs/engine.md "Learned timing"): attempts and approvals of the engine's
 * retries per merchant, original decline family, brand, issuer (first six digits), and the
 * payer's local hour, weekday and day-of-month bucket. Bounded: the key's parts are small
 * fixed sets but the issuer, and the sweep keeps each merchant's rows under a cap.
 */
export const learnedTiming = pgTable(
  'learned_timing',
  {
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id, { onDelete: 'cascade' }),
    ...learnedCounts(),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.family, t.brand, t.bin, t.weekday, t.localHour, t.dayBucket] }),
    index('learned_timing_updated_idx').on(t.updatedAt),
  ],
);

/**
 * The same counts summed over every merchant, kept apart so the planner's fallback reads a
 * table bounded by its own cap instead of scanning every merchant's rows.
 */
export const learnedTimingGlobal = pgTable(
  'learned_timing_global',
  learnedCounts(),
  (t) => [
    primaryKey({ columns: [t.family, t.brand, t.bin, t.weekday, t.localHour, t.dayBucket] }),
    index('learned_timing_global_updated_idx').on(t.updatedAt),
  ],
);

/** Token buckets for limits that must hold across replicas (per-merchant HTTP rate limit). */
export const rateBuckets = pgTable('rate_buckets', {
  key: text('key').primaryKey(),
  tokens: doublePrecision('tokens').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});

/**
 * The transactional outbox: one row per event, written in the same transaction as the
 * order's state change. `id` is the webhook-id (`msg_…`), the same on every retry and replay.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    merchantId: uuid('merchant_id').notNull().references(() => merchants.id),
    orderSessionKey: uuid('order_session_key').references(() => orders.id),
    type: text('type').notNull(),
    payload: json('payload').notNull(),
    createdAt: createdAt(),
  },
  // By order: the purge removes a purged order's events with it.
  (t) => [index('webhook_events_merchant_idx').on(t.merchantId, t.createdAt), index('webhook_events_order_idx').on(t.orderSessionKey)],
);

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'dead'] as const;

/** One delivery of an event to an endpoint; a replay is a new delivery of the same event. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    eventId: text('event_id').notNull().references(() => webhookEvents.id),
    endpointId: uuid('endpoint_id').notNull().references(() => webhookEndpoints.id),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull(),
    isResent: boolean('is_resent').notNull().default(false),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_deliveries_lease_idx').on(t.leaseExpiresAt).where(sql`status = 'delivering'`),
    index('webhook_deliveries_event_idx').on(t.eventId),
    index('webhook_deliveries_endpoint_status_idx').on(t.endpointId, t.status),
  ],
);

/** Every POST of a delivery: status code, latency, error. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    deliveryId: uuid('delivery_id').notNull().references(() => webhookDeliveries.id),
    attemptNo: integer('attempt_no').notNull(),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms'),
    error: text('error'),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attemptNo)],
);
