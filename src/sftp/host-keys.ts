// The server's host keys: ed25519 (what OpenSSH clients pick) and RSA (for older clients),
// generated on first start and kept, private files mode 0600 in a 0700 folder. Creation
// uses O_EXCL, so replicas starting together on a shared root keep one key of each type.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { Logger } from '../log.ts';

export const KEY_TYPES = [
  { type: 'ed25519', file: 'ssh_host_ed25519_key' },
  { type: 'rsa', file: 'ssh_host_rsa_key', bits: 3072 },
] as const;

export interface HostKey {
  type: string;
  privateKey: Buffer;
  /** As `ssh-keygen -lf` prints it, for merchants to check on first connection. */
  fingerprint: string;
}

function fingerprintOf(privateKey: Buffer): { type: string; fingerprint: string } {
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error) throw parsed;
  const blob = parsed.getPublicSSH();
  return { type: parsed.type, fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}` };
}

type KeySpec = (typeof KEY_TYPES)[number];
type KeyPair = { private: string; public: string };
export type KeyGenerator = (spec: KeySpec) => KeyPair;

const ssh2Generator: KeyGenerator = (spec) =>
  spec.type === 'rsa' ? ssh2.utils.generateKeyPairSync('rsa', { bits: spec.bits }) : ssh2.utils.generateKeyPairSync('ed25519');

/**
 * A key pair ssh2 can read back. ssh2 1.17's generator strips leading zero bytes from an
 * ed25519 public key, so about 1 key in 256 comes out malformed (mscdex/ssh2#1513; it failed
 * a CI run here): a host key like that, once written, would stop the daemon at every start.
 * Such a pair is thrown away and generated again.
 */
export function readableKeyPair(spec: KeySpec, generate: KeyGenerator = ssh2Generator): KeyPair {
  for (let tries = 0; tries < 16; tries++) {
    const pair = generate(spec);
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error) && !(ssh2.utils.parseKey(pair.public) instanceof Error)) return pair;
  }
  throw new Error(`could not generate a readable ${spec.type} host key`);
}

async function createKey(path: string, spec: KeySpec): Promise<boolean> {
  const pair = readableKeyPair(spec);
  try {
    await writeFile(path, pair.private, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  await writeFile(`${path}.pub`, `${pair.public}\n`, { mode: 0o644 });
  return true;
}

async function loadKey(dir: string, spec: KeySpec, log: Logger): Promise<HostKey> {
  const path = join(dir, spec.file);
  // Generating an RSA key takes a second: only when the file is missing.
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  const created = !exists && (await createKey(path, spec));
  const mode = (await stat(path)).mode & 0o777;
  if (mode & 0o077) {
    log.warn({ path, mode: mode.toString(8) }, 'host key was readable by others: mode set to 0600');
    await chmod(path, 0o600);
  }
  const privateKey = await readFile(path);
  const { type, fingerprint } = fingerprintOf(privateKey);
  if (created) log.info({ path, type, fingerprint }, 'host key generated');
  return { type, privateKey, fingerprint };
}

/** Loads the host keys from `dir`, generating the missing ones. */
export async function loadHostKeys(dir: string, log: Logger): Promise<HostKey[]> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const keys: HostKey[] = [];
  for (const spec of KEY_TYPES) keys.push(await loadKey(dir, spec, log));
  return keys;
}
