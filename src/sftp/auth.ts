// Public-key authentication. A login needs, in this order: a known SFTP user, an active
// merchant, a source address inside that user's allowed ranges, a registered key, and a
// valid signature by that key (the client first asks whether a key would do, without a
// signature; it is told yes only when everything but the signature already holds).
import ssh2, { type ParsedKey, type PublicKeyAuthContext } from 'ssh2';
import type { SftpLogin } from '../db/queries/find-sftp-login.ts';
import { addressInRanges } from './addresses.ts';

export type KeyCheck = { ok: true; key: ParsedKey } | { ok: false; reason: string };

export function checkLogin(login: SftpLogin | undefined, remoteAddress: string, offered: { algo: string; data: Buffer }): KeyCheck {
  if (!login) return { ok: false, reason: 'unknown user' };
  if (!login.active) return { ok: false, reason: 'merchant disabled' };
  if (!addressInRanges(remoteAddress, login.cidrs)) return { ok: false, reason: 'source address not allowed for this user' };
  const blob = offered.data.toString('base64');
  const entry = login.keys.find((k) => k.publicKey === blob);
  if (!entry) return { ok: false, reason: 'key not registered' };
  const key = ssh2.utils.parseKey(`${entry.algorithm} ${entry.publicKey}`);
  if (key instanceof Error) return { ok: false, reason: 'registered key unreadable' };
  return { ok: true, key };
}

/** The signature over the session's data, made by the registered key. */
export function signatureValid(key: ParsedKey, ctx: PublicKeyAuthContext): boolean {
  if (!ctx.signature || !ctx.blob) return false;
  return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
}
