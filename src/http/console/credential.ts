// The console's operator credential: a token whose SHA-256 is configured
// (console.operatorTokenSha256), never a merchant's bearer token. In sandbox without one, a
// token is generated once into <dataDir>/console-token (mode 0600, like secrets.json) so
// `npm start` gives a working console; production must configure the digest.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config/index.ts';
import type { ResolvedConfig } from '../../config/index.ts';

export const TOKEN_FILE = 'console-token';

export interface OperatorCredential {
  /** SHA-256 of the operator token: what a presented token is compared with. */
  sha256: Buffer;
  /** HMAC key of the session cookies: from the active signing key and the credential, so a new token ends every session. */
  sessionKey: Buffer;
  /** The generated sandbox token's file, to tell the operator where it is; undefined when configured. */
  tokenFile: string | undefined;
}

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

function sandboxToken(dataDir: string): { token: string; file: string } {
  const file = join(dataDir, TOKEN_FILE);
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token) return { token, file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError('console.operatorTokenSha256', `cannot read ${file}: ${(err as Error).message}`);
  }
  const token = `rco_${randomBytes(32).toString('base64url')}`;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return { token, file };
}

/** Whether the console is served: the configured value, else on in sandbox only. */
export function consoleEnabled(config: Pick<ResolvedConfig, 'mode' | 'console'>): boolean {
  return config.console.enabled ?? config.mode === 'sandbox';
}

export function operatorCredential(config: ResolvedConfig): OperatorCredential {
  let digest: Buffer;
  let tokenFile: string | undefined;
  if (config.console.operatorTokenSha256) digest = Buffer.from(config.console.operatorTokenSha256, 'hex');
  else if (config.mode === 'sandbox') {
    const generated = sandboxToken(config.dataDir);
    digest = sha256(generated.token);
    tokenFile = generated.file;
  } else throw new ConfigError('console.operatorTokenSha256', 'required in production mode while the console is on (hex SHA-256 of the operator token), or set console.enabled to false');
  const signingKey = Buffer.from(config.auth.signingKeys[config.auth.activeSigningKeyId] ?? '', 'base64');
  const sessionKey = createHmac('sha256', signingKey).update('rescued console session\u0000').update(digest).digest();
  return { sha256: digest, sessionKey, tokenFile };
}
