// The one schema of rescued's configuration. Every key has a default and, where it has a
// unit, the unit is in its name. config/rescued.example.json mirrors these defaults and
// test/unit/config.test.ts keeps the two in step.
import { Type, type Static } from '@sinclair/typebox';

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
      },
      { additionalProperties: false, default: {} },
    ),
    database: Type.Object(
      {
        url: Type.String({ default: '', description: 'postgres:// URL of a PostgreSQL server; empty = embedded PGlite in <dataDir>/db. Also DATABASE_URL.' }),
        poolSize: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
      },
      { additionalProperties: false, default: {} },
    ),
    http: Type.Object(
      {
        host: Type.String({ minLength: 1, default: '127.0.0.1' }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
        bodyLimitBytes: Type.Integer({ minimum: 1024, default: 1_048_576 }),
        trustProxy: Type.Boolean({ default: false, description: 'honour X-Forwarded-For from a reverse proxy' }),
      },
      { additionalProperties: false, default: {} },
    ),
    auth: Type.Object(
      {
        tokenLifetimeSeconds: Type.Integer({ minimum: 60, maximum: 86_400, default: 600 }),
        issuer: Type.String({ minLength: 1, default: 'rescued' }),
        signingKeys: { ...Base64Keys, default: {} },
        activeSigningKeyId: Type.String({ default: '', description: 'id in signingKeys that signs new tokens; the others still verify' }),
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
        maxFileSizeBytes: Type.Integer({ minimum: 1, default: 2_147_483_648, description: 'largest file a merchant may upload' }),
        maxOpenHandles: Type.Integer({ minimum: 1, maximum: 1024, default: 32, description: 'open files and folders per SFTP session' }),
        maxSessionsPerMerchant: Type.Integer({ minimum: 1, maximum: 1000, default: 4, description: 'concurrent connections (and SFTP sessions) per merchant, per instance' }),
        idleTimeoutMs: Type.Integer({ minimum: 1000, default: 600_000, description: 'a logged-in connection without SFTP requests for this long is closed' }),
        loginTimeoutMs: Type.Integer({ minimum: 1000, default: 30_000, description: 'a connection that has not logged in after this long is closed' }),
        maxInFlightWrites: Type.Integer({ minimum: 1, maximum: 4096, default: 64, description: 'write requests of one session being written to disk at once; beyond it the client is slowed through the SSH window' }),
        authFailuresPerMinute: Type.Integer({ minimum: 1, default: 20, description: 'refused logins or connections per source address per minute before that address is refused outright' }),
        watchStabilityMs: Type.Integer({ minimum: 0, default: 2000, description: 'a file placed in inbound/ by other means is handed over once its size has not changed for this long' }),
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
