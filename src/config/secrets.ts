// Secrets in the configuration: in production every one must be given (a missing one is a
// configuration error naming the key); in sandbox the missing ones are generated once into
// <dataDir>/secrets.json (mode 0600) so `npm start` works on a fresh clone and tokens and
// encrypted data survive a restart.
import { mkdirSync, readFileSync, writeFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './schema.ts';
import { ConfigError } from './error.ts';

interface SandboxSecrets {
  signingKey: string;
  vaultKey: string;
  fingerprintKey: string;
}

const newKey = () => randomBytes(32).toString('base64');

function sandboxSecrets(dataDir: string): SandboxSecrets {
  const path = join(dataDir, 'secrets.json');
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as SandboxSecrets;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError('dataDir', `cannot read ${path}: ${(err as Error).message}`);
  }
  const secrets: SandboxSecrets = { signingKey: newKey(), vaultKey: newKey(), fingerprintKey: newKey() };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  renameSync(tmp, path);
  return secrets;
}

function checkKeyring(keys: Record<string, string>, active: string, keysName: string, activeName: string): void {
  if (Object.keys(keys).length === 0) throw new ConfigError(keysName, 'required in production mode (base64 of 32 random bytes per key id)');
  if (!active) throw new ConfigError(activeName, 'required in production mode');
  if (!(active in keys)) throw new ConfigError(activeName, `"${active}" is not a key id in ${keysName}`);
}

function checkBase64Key(value: string, name: string): void {
  if (Buffer.from(value, 'base64').length !== 32 || !/^[A-Za-z0-9+/]{43}=$/.test(value)) {
    throw new ConfigError(name, 'must be base64 of exactly 32 bytes');
  }
}

/** Fills in (sandbox) or checks (production) the secrets, in place, before the config is frozen. */
export function resolveSecrets(config: Config, dataDir: string): void {
  const { auth, vault } = config;
  const missing = Object.keys(auth.signingKeys).length === 0 || Object.keys(vault.keys).length === 0 || !vault.fingerprintKey;
  if (config.mode === 'sandbox' && missing) {
    const generated = sandboxSecrets(dataDir);
    if (Object.keys(auth.signingKeys).length === 0) {
      auth.signingKeys = { sandbox: generated.signingKey };
      auth.activeSigningKeyId ||= 'sandbox';
    }
    if (Object.keys(vault.keys).length === 0) {
      vault.keys = { sandbox: generated.vaultKey };
      vault.activeKeyId ||= 'sandbox';
    }
    vault.fingerprintKey ||= generated.fingerprintKey;
  }
  if (config.mode === 'sandbox') {
    auth.activeSigningKeyId ||= Object.keys(auth.signingKeys)[0]!;
    vault.activeKeyId ||= Object.keys(vault.keys)[0]!;
  }
  checkKeyring(auth.signingKeys, auth.activeSigningKeyId, 'auth.signingKeys', 'auth.activeSigningKeyId');
  checkKeyring(vault.keys, vault.activeKeyId, 'vault.keys', 'vault.activeKeyId');
  if (!vault.fingerprintKey) throw new ConfigError('vault.fingerprintKey', 'required in production mode (base64 of 32 random bytes)');
  checkBase64Key(vault.fingerprintKey, 'vault.fingerprintKey');
}

/**
 * A secret kept in a file of its own (database.passwordFile): its content without the final
 * line break. Refused, as PostgreSQL refuses a server key file, unless only its owner can
 * read it (0600 or less), or it is owned by root and readable by its group too (0640 or less,
 * for a root:rescued file in /etc/rescued). The error names the key and the file, never the
 * content.
 */
export function readSecretFile(path: string, key: string): string {
  let text: string;
  try {
    const st = statSync(path);
    const tooOpen = st.uid === 0 ? st.mode & 0o037 : st.mode & 0o077;
    if (tooOpen) throw new ConfigError(key, `${path} is readable or writable by others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 it (or 640 owned by root and the daemon's group)`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(key, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  const secret = text.replace(/\r?\n$/, '');
  if (!secret) throw new ConfigError(key, `${path} is empty`);
  if (/[\r\n]/.test(secret)) throw new ConfigError(key, `${path} must hold the password alone, on one line`);
  return secret;
}

/** database.passwordFile: readable, private, and the only place the password is given. */
export function checkDatabasePassword(database: Config['database']): void {
  if (!database.passwordFile) return;
  if (!database.url) throw new ConfigError('database.passwordFile', 'is for a PostgreSQL server: set database.url too');
  if (passwordInUrl(database.url)) throw new ConfigError('database.passwordFile', 'database.url holds a password too: give it in one place (the file)');
  readSecretFile(database.passwordFile, 'database.passwordFile');
}

function passwordInUrl(url: string): boolean {
  const auth = /^[a-z][a-z0-9+.-]*:\/\/([^@/?#]*)@/i.exec(url)?.[1];
  return auth !== undefined && auth.includes(':');
}
