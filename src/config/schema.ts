// The one schema of rescued's configuration. Every key has a default and, where it has a
// unit, the unit is in its name. config/rescued.example.json mirrors these defaults and
// test/unit/config.test.ts keeps the two in step.
import { Type, type Static } from '@sinclair/typebox';
import { MASTERCARD_ATTEMPT_LIMITS, VISA_REATTEMPT_LIMITS } from './network-limits.ts';

/** A default the config schema hands out as a fresh, mutable copy (a loaded config may be changed). */
const clone = <T>(rows: readonly T[]): T[] => rows.map((r) => ({ ...r }));

const Base64Keys = Type.Record(Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$' }), Type.String({ minLength: 44, maxLength: 44, pattern: '^[A-Za-z0-9+/]{43}=$' }), {
  description: 'key id → base64 of 32 random bytes',
});

export const ConfigSchema = Type.Object(
  {
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('production')], { default: 'sandbox', description: 'sandbox accepts only whitelisted test cards; production requires every secret in configuration' }),
    dataDir: Type.String({ minLength: 1, default: './data', description: 'folder for the embedded database, generated sandbox secrets and (by default) the SFTP homes' }),
    log: Type.Object(
      {
        level: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info' }),
        format: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], { default: 'auto', description: 'auto: one readable line per event when stdout is a terminal, JSON lines otherwise (journald, a pipe); json or pretty: always that' }),
      },
      { additionalProperties: false, default: {} },
    ),
    database: Type.Object(
      {
        url: Type.String({ default: '', description: 'postgres:// URL of a PostgreSQL server (a Unix socket by its folder, as libpq: postgres://rescued@/rescued?host=/var/run/postgresql); empty = embedded PGlite in <dataDir>/db. Also DATABASE_URL.' }),
        passwordFile: Type.String({ default: '', description: 'a file holding the PostgreSQL password alone (one line), so that database.url need not: mode 0600 owned by the daemon\'s user, or 0640 owned by root; read at each new connection, never logged. Also RESCUED_DATABASE_PASSWORD_FILE.' }),
        poolSize: Type.Integer({ minimum: 1, maximum: 200, default: 20, description: 'connections to a PostgreSQL server, per instance; a real-time call holds one per statement, so under load a larger pool means less queueing (CIT evaluate: 805 requests/s at 10, 1,337 at 30)' }),
      },
      { additionalProperties: false, default: {} },
    ),
    http: Type.Object(
      {
        host: Type.String({ minLength: 1, default: '127.0.0.1' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
        bodyLimitBytes: Type.Integer({ minimum: 1024, default: 1_048_576 }),
        trustProxy: Type.Boolean({ default: false, description: 'honour X-Forwarded-For from a reverse proxy' }),
        tlsCertFile: Type.String({ default: '', description: 'PEM certificate chain: the side-port speaks HTTPS (with tlsKeyFile); empty: plain HTTP behind a TLS proxy' }),
        tlsKeyFile: Type.String({ default: '', description: 'PEM private key of tlsCertFile' }),
      },
      { additionalProperties: false, default: {} },
    ),
    auth: Type.Object(
      {
        tokenLifetimeSeconds: Type.Integer({ minimum: 60, maximum: 86_400, default: 600 }),
        issuer: Type.String({ minLength: 1, default: 'rescued' }),
        signingKeys: { ...Base64Keys, default: {} },
        activeSigningKeyId: Type.String({ default: '', description: 'id in signingKeys that signs new tokens; the others still verify' }),
        failuresPerClient: Type.Integer({ minimum: 1, default: 5, description: 'failed /oauth2/token or /v1/tokenize authentications presenting one client id (or mid) from one source address per window before that address gets 429 for that id' }),
        failuresPerAddress: Type.Integer({ minimum: 1, default: 20, description: 'failed authentications from one source address (an IPv6 /64) per window, whatever the ids, before that address gets 429' }),
        failureWindowSeconds: Type.Integer({ minimum: 1, maximum: 3600, default: 60, description: 'the sliding window of failuresPerClient and failuresPerAddress' }),
      },
      { additionalProperties: false, default: {} },
    ),
    vault: Type.Object(
      {
        keys: { ...Base64Keys, default: {} },
        activeKeyId: Type.String({ default: '', description: 'id in vault.keys that encrypts new data; the others still decrypt' }),
        fingerprintKey: Type.String({ default: '', description: 'base64 of 32 random bytes: HMAC key for card fingerprints' }),
      },
      { additionalProperties: false, default: {} },
    ),
    sftp: Type.Object(
      {
        enabled: Type.Boolean({ default: true, description: 'run the SFTP server (batch file drop)' }),
        host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'listen address; 0.0.0.0 or :: to accept merchants from other machines' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 2222, description: '0 = any free port' }),
        rootDir: Type.String({ default: '', description: 'data root holding <username>/{inbound,outbound} and the host keys; empty = <dataDir>/sftp' }),
        maxFileSizeBytes: Type.Integer({ minimum: 1, default: 1_073_741_824, description: 'largest file a merchant may upload (its highest written offset, so a sparse file counts in full)' }),
        quotaBytes: Type.Integer({ minimum: 1, default: 1_073_741_824, description: 'bytes one merchant may keep: inbound/ (uploads in progress included; sparse files count in full), outbound/ (its acks and results, which it may remove) and its archive of ingested files; an upload past it is refused' }),
        quotaFiles: Type.Integer({ minimum: 1, default: 1000, description: 'files one merchant may keep in inbound/, uploads in progress included' }),
        quotaFolders: Type.Integer({ minimum: 0, default: 100, description: 'folders one merchant may create in inbound/' }),
        maxFolderDepth: Type.Integer({ minimum: 0, maximum: 64, default: 8, description: 'how deep folders may nest below inbound/' }),
        maxOpenHandles: Type.Integer({ minimum: 1, maximum: 1024, default: 32, description: 'open files and folders per SFTP session' }),
        maxSessionsPerMerchant: Type.Integer({ minimum: 1, maximum: 1000, default: 4, description: 'concurrent connections (and SFTP sessions) per merchant, per instance' }),
        idleTimeoutMs: Type.Integer({ minimum: 1000, default: 600_000, description: 'a logged-in connection without SFTP requests for this long is closed' }),
        loginTimeoutMs: Type.Integer({ minimum: 1000, default: 30_000, description: 'a connection that has not logged in after this long is closed' }),
        maxInFlightWrites: Type.Integer({ minimum: 1, maximum: 4096, default: 64, description: 'write requests of one session being written to disk at once; beyond it the client is slowed through the SSH window' }),
        authFailuresPerMinute: Type.Integer({ minimum: 1, default: 20, description: 'refused logins or connections per source address per minute before that address is refused outright' }),
        watchStabilityMs: Type.Integer({ minimum: 0, default: 2000, description: 'a file placed in inbound/ by other means is handed over once its size has not changed for this long' }),
        watchRescanMs: Type.Integer({ minimum: 100, default: 60_000, description: 'every inbound/ is listed again this often, a net for files the watcher\'s events missed (shorter on file systems without reliable change events, such as network mounts)' }),
        preferAesGcm: Type.Boolean({ default: true, description: 'offer OpenSSH clients (6.2 or later) AES-GCM only, the cheapest cipher for both sides; false also offers them chacha20-poly1305 and AES-CTR (for a client configured without AES-GCM)' }),
      },
      { additionalProperties: false, default: {} },
    ),
    // Sections of the engine, the processor, the webhooks and the HTTP API: each stage owns its own.
    engine: Type.Object(
      {
        enabled: Type.Boolean({ default: true, description: 'run the rescue engine (attempts and sweeps) in this instance' }),
        pollIntervalMs: Type.Integer({ minimum: 10, default: 1000, description: 'how often an idle worker looks for due orders' }),
        claimBatchSize: Type.Integer({ minimum: 1, maximum: 10_000, default: 100, description: 'orders claimed (or planned) per statement; a full claim polls again at once' }),
        leaseSeconds: Type.Integer({ minimum: 5, default: 120, description: 'an order held longer than this by a vanished instance returns to the queue' }),
        sweepCron: Type.String({ minLength: 9, default: '*/15 * * * * *', description: 'node-cron schedule (with seconds) of the sweeps: expiry, leases, batch results, pruning' }),
        processorCallRetentionDays: Type.Integer({ minimum: 1, default: 90, description: 'the sandbox processor forgets idempotency keys older than this' }),
        maxAttemptsPerOrder: Type.Integer({ minimum: 1, maximum: 100, default: 15, description: 'retries of one order at most (15: Visa\'s allowance per card in 30 days until April 2026; the card caps apply on top)' }),
        visaReattemptLimits: Type.Array(
          Type.Object({
            fromUtc: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the UTC day the limit takes effect (YYYY-MM-DD)' }),
            maxPer30Days: Type.Integer({ minimum: 1, maximum: 100 }),
            separateCitMit: Type.Boolean({ description: 'CIT and MIT reattempts counted apart' }),
          }, { additionalProperties: false }),
          { minItems: 1, maxItems: 20, default: clone(VISA_REATTEMPT_LIMITS), description: 'Visa categories 2–4 as a dated table: reattempts per card (per credential) and merchant in 30 days; the row in force on the day applies, the first also before its date. Default: 15 from April 2021; 20, CIT and MIT apart, from 25 April 2026 (src/config/network-limits.ts names the sources). Not settable from the environment' },
        ),
        visaMaxReattemptsPer30Days: Type.Integer({ minimum: 0, maximum: 100, default: 0, description: 'one Visa limit for every row of visaReattemptLimits (their dates and CIT/MIT counters kept); 0: the table\'s own limits' }),
        mastercardAttemptLimits: Type.Array(
          Type.Object({
            fromUtc: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the UTC day the limits take effect (YYYY-MM-DD)' }),
            maxAttemptsPer30Days: Type.Integer({ minimum: 1, maximum: 100 }),
            maxDeclinesPer24Hours: Type.Integer({ minimum: 1, maximum: 100 }),
          }, { additionalProperties: false }),
          { minItems: 1, maxItems: 20, default: clone(MASTERCARD_ATTEMPT_LIMITS), description: 'Mastercard\'s excessive-attempt limits as a dated table: authorizations per card and merchant in 30 days and declines in 24 hours, each order\'s original decline and the merchant\'s earlier tries included. Default: 35 and 20 from November 2023. Not settable from the environment' },
        ),
        learning: Type.Union([Type.Literal('on'), Type.Literal('frozen'), Type.Literal('off')], {
          default: 'on',
          description: 'learned timing (docs/engine.md "Learned timing"): on = attempts add to the learned table and plans use it; frozen = plans use the table as it stands, nothing is added; off = the static model alone',
        }),
        awaitUpdatedCard: Type.Union([Type.Literal('sandbox'), Type.Literal('on'), Type.Literal('off')], {
          default: 'sandbox',
          description: 'an MIT whose decline means the card must change (expired, lost or stolen, closed, invalid number, Mastercard MAC 01) waits for an updated card until its expiryDateUtc and order.card_update_needed is sent (on), or ends EXPIRED at once (off); sandbox: on in sandbox mode, off in production. A merchant\'s own setting (rescued merchant set-card-updates) wins. docs/engine.md "Card updates"',
        }),
        pauseAfterAnswerMs: Type.Integer({ minimum: 0, default: 0, description: 'testing only: wait this long between the processor\'s answer and recording it (a window for crash tests)' }),
      },
      { additionalProperties: false, default: {} },
    ),
    processor: Type.Object(
      {
        name: Type.Union([Type.Literal('sandbox')], { default: 'sandbox', description: 'the built-in processor that charges, in sandbox mode, for merchants without accounts of their own; the merchants\' own gateway accounts are added with rescued processor add' }),
        latencyMs: Type.Integer({ minimum: 0, default: 0, description: 'sandbox: added delay of every call' }),
        concurrency: Type.Integer({ minimum: 1, maximum: 1000, default: 128, description: 'attempts in flight at the processor at once, per instance (with 300 ms of processor latency, 128 keep about 400 attempts/s going, under ratePerSecond)' }),
        ratePerSecond: Type.Integer({ minimum: 1, default: 500, description: 'attempts started per second at most, per instance' }),
        timeoutMs: Type.Integer({ minimum: 100, maximum: 120_000, default: 30_000, description: 'a gateway call without an answer after this long has an unknown outcome (it is reconciled, never sent blindly again)' }),
        accountConcurrency: Type.Integer({ minimum: 1, maximum: 1000, default: 32, description: 'calls in flight to one merchant processor account at once, per instance' }),
        accountRatePerSecond: Type.Integer({ minimum: 1, default: 100, description: 'calls started per second to one processor account at most, per instance' }),
        breakerFailures: Type.Integer({ minimum: 1, default: 10, description: 'failed calls (no answer about the card) within 10 s, at least half of that window\'s calls, after which an account is not called for breakerCooldownMs' }),
        breakerCooldownMs: Type.Integer({ minimum: 100, default: 30_000, description: 'how long an account whose calls keep failing is left alone before one call tries it again; doubled after each failed try, up to 32 times' }),
        reconcileAfterMs: Type.Integer({ minimum: 10, default: 60_000, description: 'an attempt whose outcome is unknown is reconciled (looked up, or sent again with its key) this long after' }),
        reconcileTimeoutMs: Type.Integer({ minimum: 1000, default: 86_400_000, description: 'an attempt still unreconciled after this long parks its order for the operator' }),
        gatewayUrls: Type.Record(Type.String(), Type.String(), { default: {}, description: 'testing only: a base URL per account type (stripe, adyen, braintree, authorizenet, nmi, http) instead of the real gateway; each type\'s form is in docs/gateways/. Every start logs a warning naming the types; production refuses to start with it unless acknowledgeGatewayUrls' }),
        acknowledgeGatewayUrls: Type.Boolean({ default: false, description: 'production only: true lets the daemon start with gatewayUrls set, sending every charge of those types, and their secret keys, to those URLs' }),
      },
      { additionalProperties: false, default: {} },
    ),
    webhooks: Type.Object(
      {
        enabled: Type.Boolean({ default: true, description: 'run the webhook dispatcher in this instance' }),
        timeoutMs: Type.Integer({ minimum: 1000, maximum: 60_000, default: 15_000, description: 'a POST without an answer after this long counts as failed' }),
        maxInFlight: Type.Integer({ minimum: 1, maximum: 10_000, default: 64, description: 'webhook POSTs in flight at once, per instance' }),
        perEndpointConcurrency: Type.Integer({ minimum: 1, maximum: 1000, default: 32, description: 'POSTs in flight to one merchant endpoint at once, across all instances' }),
        leaseSeconds: Type.Integer({ minimum: 5, default: 60, description: 'a delivery held longer than this by a vanished instance is delivered again (at least timeoutMs + 5 s)' }),
        pollIntervalMs: Type.Integer({ minimum: 10, default: 500, description: 'how often an idle dispatcher looks for due deliveries' }),
        retryDelaysMs: Type.Array(Type.Integer({ minimum: 100, maximum: 36_000_000 }), {
          minItems: 1, maxItems: 20, default: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
          description: 'the delay after each failed delivery attempt (±10 % jitter); after the last one the delivery is dead-lettered. Shorten it only for tests',
        }),
      },
      { additionalProperties: false, default: {} },
    ),
    api: Type.Object(
      {
        rateLimitPerSecond: Type.Number({ exclusiveMinimum: 0, default: 100, description: 'merchant API requests per second and merchant, across all instances (token bucket refill)' }),
        rateLimitBurst: Type.Integer({ minimum: 1, default: 200, description: 'requests a merchant may send at once above the steady rate (token bucket size)' }),
        idempotencyTtlSeconds: Type.Integer({ minimum: 60, default: 86_400, description: 'how long an evaluate answer is replayed for its idempotencyKey' }),
        idempotencyInFlightSeconds: Type.Integer({ minimum: 1, default: 60, description: 'a first request still unanswered after this long (its instance died) no longer blocks its key' }),
        clockSkewSeconds: Type.Integer({ minimum: 0, maximum: 86_400, default: 300, description: 'how far ahead of this server\'s clock the time of a past event (transaction.timestampUtc, payer.birthdate) may be, in an evaluate request or a batch entry, before it is refused as a field error (ERR_MODEL_TIME_IN_FUTURE): the merchant\'s clock may run a little ahead' }),
        challengeTtlSeconds: Type.Integer({ minimum: 30, default: 900, description: 'how long a CHALLENGE answer may be completed before the order expires' }),
        transmitFlushIntervalMs: Type.Integer({ minimum: 10, default: 1000, description: 'buffered transmit records are stored at least this often' }),
        transmitBatchSize: Type.Integer({ minimum: 1, maximum: 10_000, default: 500, description: 'transmit records per insert; a full batch is stored at once' }),
        transmitMaxBuffered: Type.Integer({ minimum: 1, default: 20_000, description: 'transmit records waiting to be stored before transmit answers 503' }),
        docsEnabled: Type.Union([Type.Boolean(), Type.Null()], { default: null, description: 'serve /openapi.json and the rendered reference at /docs; null: on in sandbox, off in production' }),
        metricsEnabled: Type.Boolean({ default: true, description: 'serve Prometheus metrics at /metrics (in production only with metricsToken)' }),
        metricsToken: Type.String({ default: '', description: 'bearer token /metrics requires when set; production serves /metrics only with one' }),
      },
      { additionalProperties: false, default: {} },
    ),
    console: Type.Object(
      {
        enabled: Type.Union([Type.Boolean(), Type.Null()], { default: null, description: 'serve the read-only operator console at /console on the side-port; null: on in sandbox, off in production' }),
        operatorTokenSha256: Type.String({ default: '', pattern: '^([0-9a-f]{64})?$', description: 'hex SHA-256 of the operator token the console requires (printf %s "$TOKEN" | sha256sum); empty in sandbox: one is generated into <dataDir>/console-token; required in production when the console is on' }),
        sessionSeconds: Type.Integer({ minimum: 60, maximum: 604_800, default: 28_800, description: 'how long a console sign-in lasts' }),
      },
      { additionalProperties: false, default: {} },
    ),
    intake: Type.Object(
      {
        maxUnpackedBytes: Type.Integer({ minimum: 1024, default: 8 * 1024 ** 3, description: 'bytes a batch file may unpack to; reading stops and the file is rejected past it' }),
        maxExpansionRatio: Type.Integer({ minimum: 2, default: 200, description: 'decompressed bytes per compressed byte of a .json.gz, judged past its first 16 MiB' }),
        maxEntryBytes: Type.Integer({ minimum: 1024, default: 262_144, description: 'bytes of one entry of requests (a real one is a few KiB)' }),
        maxKeyBytes: Type.Integer({ minimum: 16, default: 1024, description: 'bytes of one top-level key of a batch file' }),
        maxDepth: Type.Integer({ minimum: 4, maximum: 1000, default: 32, description: 'nesting of objects and arrays inside one entry' }),
        maxHeaderKeys: Type.Integer({ minimum: 3, maximum: 10_000, default: 16, description: 'top-level keys of a batch file beside requests (the header has three)' }),
        maxHeaderBytes: Type.Integer({ minimum: 1024, default: 65_536, description: 'bytes of every header key and value together' }),
        maxEntries: Type.Integer({ minimum: 1, default: 1_000_000, description: 'entries of requests in one batch file' }),
        fileMemoryBytes: Type.Integer({ minimum: 4 * 1024 * 1024, default: 67_108_864, description: 'memory intake may hold for one file (header, entries being parsed and stored, the ack\'s lists; estimated heap): reading stops and the file is rejected past it' }),
        memoryBytes: Type.Integer({ minimum: 4 * 1024 * 1024, default: 100_663_296, description: 'memory intake may hold for every file of the process together' }),
        maxTries: Type.Integer({ minimum: 1, maximum: 100, default: 8, description: 'tries of a file whose ingest fails on a transient error (a lost database connection) before it is quarantined; a database refusal is quarantined at once' }),
        retryBaseMs: Type.Integer({ minimum: 10, default: 5000, description: 'delay before a file\'s second try; it doubles for each try after' }),
        retryMaxMs: Type.Integer({ minimum: 10, default: 300_000, description: 'longest delay between two tries of a file' }),
        stagedCommitEntries: Type.Integer({ minimum: 1, default: 10_000, description: 'entries per committed transaction of a large file\'s staged ingest (at most a second of work each): its first orders are due after the first' }),
        pauseAfterCommitMs: Type.Integer({ minimum: 0, default: 0, description: 'testing only: wait this long after each committed transaction of a large file\'s staged ingest (a window for crash tests)' }),
      },
      { additionalProperties: false, default: {} },
    ),
    retention: Type.Object(
      {
        enabled: Type.Boolean({ default: true, description: 'run the purge sweep in this instance (replicas take an advisory lock, so one purges at a time); `rescued purge` runs it by hand' }),
        purgeCron: Type.String({ minLength: 9, default: '0 23 * * * *', description: 'node-cron schedule (with seconds) of the purge sweep; hourly keeps each run small' }),
        batchSize: Type.Integer({ minimum: 1, maximum: 10_000, default: 500, description: 'rows deleted per transaction; each batch is its own short transaction, so the purge never holds a lock for long' }),
        orderDays: Type.Integer({ minimum: 1, default: 540, description: 'a final order (with its attempts, refunds, processor records and webhook events) and its batch are kept this long after the order finished: the longest window in which a card network accepts a dispute (540 days from processing)' }),
        cardDays: Type.Integer({ minimum: 1, default: 30, description: 'a stored card no open order needs is deleted once it has not been tokenized, used by an order or charged by an attempt for this long: 30 days is the window of the per-card network limits, which count by card token' }),
        webhookDays: Type.Integer({ minimum: 1, default: 90, description: 'webhook events and their finished deliveries are kept this long (for replay and the merchant\'s reconciliation); undelivered ones are kept until delivered or dead' }),
        transmitDays: Type.Integer({ minimum: 1, default: 90, description: 'transmit records are kept this long; the merchant model keeps its counters, so the learning survives the records' }),
        archiveDays: Type.Integer({ minimum: 1, default: 90, description: 'ingested batch files in <dataDir>/archive are kept this long (by modification time): long enough to answer what a file said while its orders run' }),
        outboundDays: Type.Integer({ minimum: 1, default: 30, description: 'acknowledgement and results files in each merchant\'s outbound/ are kept this long (by modification time); the merchant collects them within days' }),
        quarantineDays: Type.Integer({ minimum: 1, default: 30, description: 'redacted files in <dataDir>/quarantine (and the ingest starts of files never ingested) are kept this long, for the operator to look into' }),
      },
      { additionalProperties: false, default: {} },
    ),
    shutdown: Type.Object(
      {
        drainTimeoutMs: Type.Integer({ minimum: 0, default: 10_000, description: 'how long in-flight work may finish after the first SIGTERM' }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
);

export type Config = Static<typeof ConfigSchema>;

/** Keys whose values are secrets: required in production, generated in sandbox, never logged. */
export const SECRET_KEYS = ['auth.signingKeys', 'auth.activeSigningKeyId', 'vault.keys', 'vault.activeKeyId', 'vault.fingerprintKey'] as const;
