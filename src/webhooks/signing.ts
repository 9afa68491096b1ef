// Both signature schemes of DESIGN.md §2, computed over the exact bytes sent:
//  - Standard Webhooks v1: `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`;
//  - the x-fc scheme: HMAC-SHA512 of "POST\n" + nonce + ";" + date + ";" + host + ";" +
//    base64(sha512(body)), in `x-fc-signature` and `x-fc-authorization`.
// Both use the decoded bytes of the endpoint's `whsec_…` secret as the HMAC key. During the
// 24 hours after a rotation every delivery carries one signature per live secret, newest
// first: Standard Webhooks lists them space-separated (its own rule), and the x-fc scheme
// does the same in `x-fc-signature` and repeats `Signature=` in `x-fc-authorization`, so a
// verifier holding either secret finds a match.
import { createHash, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const WHSEC = 'whsec_';

// A key object made once per secret: HMAC from raw bytes builds one on every call, which cost
// 13 µs a signature against 3–4 (two signatures a delivery, 2.8 s of the daemon's CPU in a
// 20,000-order run). The secrets are already held open by the dispatcher's own cache.
const keys = new Map<string, KeyObject>();
const KEYS_MAX = 10_000;

/** The HMAC key of a `whsec_<base64>` secret: its decoded bytes, as a key object. */
export function secretKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key) return key;
  const bytes = Buffer.from(secret.startsWith(WHSEC) ? secret.slice(WHSEC.length) : secret, 'base64');
  if (bytes.length === 0) throw new Error('empty webhook secret');
  if (keys.size >= KEYS_MAX) keys.clear();
  key = createSecretKey(bytes);
  keys.set(secret, key);
  return key;
}

/** `v1,<base64>` for one key. */
export function standardSignature(key: KeyObject, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export const contentSha512 = (body: string) => createHash('sha512').update(body).digest('base64');

export interface XfcParts {
  nonce: string;
  /** RFC 1123, as sent in x-fc-date. */
  date: string;
  /** The Host header: the URL's host, with its port when not the default. */
  host: string;
  contentSha512: string;
}

export function xfcStringToSign(p: XfcParts): string {
  return `POST\n${p.nonce};${p.date};${p.host};${p.contentSha512}`;
}

export function xfcSignature(key: KeyObject, p: XfcParts): string {
  return createHmac('sha512', key).update(xfcStringToSign(p)).digest('base64');
}

export const XFC_SIGNED_HEADERS = 'x-fc-nonce;x-fc-date;host;x-fc-content-sha512';

export interface SignInput {
  /** The webhook-id: the event id, the same on every retry and replay. */
  id: string;
  /** When this POST is made (the Standard Webhooks timestamp and x-fc-date). */
  at: Date;
  body: string;
  /** The Host header value (`new URL(url).host`). */
  host: string;
  /** Keys of the live secrets, newest first (one, or two during a rotation's grace period). */
  keys: readonly KeyObject[];
  /** Fixed in tests; a fresh random value otherwise. */
  nonce?: string;
}

/** Every signature header of one POST. */
export function signatureHeaders(input: SignInput): Record<string, string> {
  if (input.keys.length === 0) throw new Error('no signing key');
  const timestamp = Math.floor(input.at.getTime() / 1000);
  const parts: XfcParts = {
    nonce: input.nonce ?? randomBytes(16).toString('hex'),
    date: input.at.toUTCString(),
    host: input.host,
    contentSha512: contentSha512(input.body),
  };
  const xfc = input.keys.map((k) => xfcSignature(k, parts));
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': input.keys.map((k) => standardSignature(k, input.id, timestamp, input.body)).join(' '),
    'x-fc-nonce': parts.nonce,
    'x-fc-date': parts.date,
    'x-fc-content-sha512': parts.contentSha512,
    'x-fc-signature': xfc.join(' '),
    'x-fc-authorization': `HMAC-SHA512 SignedHeaders=${XFC_SIGNED_HEADERS}${xfc.map((s) => `&Signature=${s}`).join('')}`,
  };
}

export interface EndpointSecrets {
  current: string;
  previous?: string | null | undefined;
  previousExpiresAt?: Date | null | undefined;
}

/** The live secrets' keys at `now`, newest first: the previous one only inside its grace period. */
export function liveKeys(s: EndpointSecrets, now: Date): KeyObject[] {
  const keys = [secretKey(s.current)];
  if (s.previous && s.previousExpiresAt && s.previousExpiresAt.getTime() > now.getTime()) keys.push(secretKey(s.previous));
  return keys;
}
