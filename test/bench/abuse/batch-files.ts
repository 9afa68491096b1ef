// Hostile batch files, by category, each cut from one valid file (a real header and one
// valid entry) so that only the abuse is wrong. Each carries the refusal the ack must show:
// a whole-file `error.code`, or every entry rejected with a field code. Prototype keys are
// placed where, if they polluted anything, they would supply a missing required field and
// turn a refusal into an accepted order.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Stack } from './daemon.ts';
import type { Fixtures } from './fixtures.ts';

export type BatchExpect = { file: string[] } | { entry: string };

export interface BatchCase {
  label: string;
  name: string;
  /** The file's name in inbound/ (`.json` or `.json.gz`). */
  file: string;
  bytes: Buffer;
  expect: BatchExpect;
}

/** Bounds the daemon runs with (daemon.ts), so the huge files cross them quickly. */
export const INTAKE_BOUNDS = { maxUnpackedBytes: 3 * 1024 * 1024, maxEntryBytes: 64 * 1024, maxKeyBytes: 1024 };

const SAMPLE = join(import.meta.dirname, '..', '..', '..', 'samples', 'batches', 'valid.json');
const b = (s: string) => Buffer.from(s, 'utf8');
const SYNTAX = { file: ['ERR_INTAKE_SYNTAX'] };
/** A header field given only through a prototype key: missing (invalid) or, for `__proto__` itself, a key refused outright. */
const HEADER = { file: ['ERR_INTAKE_HEADER_INVALID', 'ERR_INTAKE_UNAUTHORIZED', 'ERR_INTAKE_SYNTAX'] };

function validEntry(s: Stack, f: Fixtures): Record<string, unknown> {
  const e = structuredClone((JSON.parse(readFileSync(SAMPLE, 'utf8')) as { requests: Array<Record<string, unknown>> }).requests[0]!);
  const tx = e.transaction as Record<string, unknown>;
  Object.assign(e, { mid: s.a.mid, siteId: s.a.siteId, orderId: `ORD-ABUSE-${randomUUID()}`, idempotencyKey: randomUUID(), sequenceNumber: 1, expiryDateUtc: undefined });
  (e.paymentMethod as Record<string, unknown>).cardNumber = f.cardToken;
  tx.timestampUtc = new Date().toISOString();
  return e;
}

/** The valid file as text, with `edit` applied to the header object and its entry. */
function fileText(s: Stack, f: Fixtures, edit: (h: Record<string, unknown>, e: Record<string, unknown>) => void = () => {}): string {
  const entry = validEntry(s, f);
  const header: Record<string, unknown> = { mid: s.a.mid, authorizationToken: f.bearer, expiryDateUtc: new Date(Date.now() + 5 * 86_400_000).toISOString() };
  edit(header, entry);
  return JSON.stringify({ ...header, requests: [entry] });
}

function malformed(s: Stack, f: Fixtures): Array<[string, Buffer]> {
  const text = fileText(s, f);
  return [
    ['empty file', b('')],
    ['unclosed header', b('{"mid":')],
    ['a JSON array at the top', b(`[${text}]`)],
    ['requests is an object', b(text.replace('"requests":[', '"requests":{"x":').replace(/]}$/, '}}'))],
    ['an entry that is not JSON', b(text.replace('"isDeclined":true', '"isDeclined":tru'))],
    ['trailing comma in an entry', b(text.replace(/}]}$/, ',}]}'))],
    ['two documents', b(`${text}${text}`)],
    ['garbage bytes', b('\u0007\u0008xyz')],
  ];
}

function truncated(s: Stack, f: Fixtures): Array<[string, Buffer, string?]> {
  const text = fileText(s, f);
  const gz = gzipSync(b(text));
  return [
    ...[0.1, 0.5, 0.9].map((p): [string, Buffer] => [`cut at ${p * 100} %`, b(text.slice(0, Math.floor(text.length * p)))]),
    ['last byte missing', b(text.slice(0, -1))],
    ['gzip cut in half', gz.subarray(0, gz.length >> 1), '.json.gz'],
    ['.json.gz that is not gzip', b(text), '.json.gz'],
  ];
}

function huge(s: Stack, f: Fixtures): BatchCase[] {
  const text = fileText(s, f);
  const big = (n: number) => `{"x":"${'a'.repeat(n)}"}`;
  const entries = Array.from({ length: Math.ceil(INTAKE_BOUNDS.maxUnpackedBytes / 60_000) + 4 }, () => big(60_000)).join(',');
  const spaces = ' '.repeat(24 * 1024 * 1024);
  const c = (name: string, bytes: Buffer, expect: string, ext = '.json'): BatchCase => ({ label: '', name, file: ext, bytes, expect: { file: [expect] } });
  return [
    c(`one entry of ${INTAKE_BOUNDS.maxEntryBytes + 1024} bytes`, b(text.replace('"requests":[', `"requests":[${big(INTAKE_BOUNDS.maxEntryBytes + 1024)},`)), 'ERR_INTAKE_ENTRY_TOO_LARGE'),
    c(`a top-level key of ${INTAKE_BOUNDS.maxKeyBytes * 2} bytes`, b(text.replace('{', `{"${'k'.repeat(INTAKE_BOUNDS.maxKeyBytes * 2)}":1,`)), 'ERR_INTAKE_ENTRY_TOO_LARGE'),
    c(`${(entries.length / 1024 / 1024).toFixed(1)} MiB of entries`, b(text.replace('"requests":[', `"requests":[${entries},`)), 'ERR_INTAKE_TOO_LARGE'),
    c('gzip bomb: 24 MiB of spaces in 24 KiB', gzipSync(b(text.replace('"requests":[', `"requests":[${spaces}`)), { level: 9 }), 'ERR_INTAKE_TOO_LARGE', '.json.gz'),
  ];
}

function nested(s: Stack, f: Fixtures): Array<[string, Buffer, BatchExpect]> {
  const text = fileText(s, f);
  const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const deep = { file: ['ERR_INTAKE_TOO_DEEP'] };
  return [
    ['an entry field 40 objects deep', b(text.replace('"isDeclined":true', `"isDeclined":true,"extra":${objects(40)}`)), deep],
    ['an entry 100,000 arrays deep', b(text.replace('"requests":[', `"requests":[${arrays(100_000)},`)), deep],
    // Header values are not entries (maxDepth is theirs); a deep one must still be refused, not crash the reader.
    ['expiryDateUtc 10,000 arrays deep', b(text.replace(/"expiryDateUtc":"[^"]*"/, `"expiryDateUtc":${arrays(10_000)}`)), { file: ['ERR_INTAKE_TOO_DEEP', 'ERR_INTAKE_SYNTAX', 'ERR_INTAKE_HEADER_INVALID'] }],
  ];
}

function encodings(s: Stack, f: Fixtures): Array<[string, Buffer]> {
  const text = fileText(s, f, (_h, e) => (e.orderId = 'ORD-ENC-@@'));
  const at = (bytes: number[]) => Buffer.concat([b(text.slice(0, text.indexOf('@@'))), Buffer.from(bytes), b(text.slice(text.indexOf('@@') + 2))]);
  const utf16 = (be: boolean, bom: boolean) => {
    const le = Buffer.from(text, 'utf16le');
    if (be) le.swap16();
    return Buffer.concat([bom ? Buffer.from(be ? [0xfe, 0xff] : [0xff, 0xfe]) : Buffer.alloc(0), le]);
  };
  return [
    ['UTF-16LE with a BOM', utf16(false, true)],
    ['UTF-16BE with a BOM', utf16(true, true)],
    ['UTF-16LE without a BOM', utf16(false, false)],
    ['UTF-8 with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b(text)])],
    ['invalid UTF-8 (0xFF) in an orderId', at([0xff])],
    ['Latin-1 é (0xE9) in an orderId', at([0xe9, 0x41])],
    ['overlong UTF-8 (0xC0 0xAF) in an orderId', at([0xc0, 0xaf])],
    ['lone continuation byte (0x80) in an orderId', at([0x80])],
  ];
}

function polluting(s: Stack, f: Fixtures): Array<[string, Buffer, BatchExpect]> {
  // The key is spliced in as text where a marker stood: JSON.stringify would not write `__proto__`.
  const moved = (where: 'header' | 'entry', field: string, key: (value: string) => string) => {
    let value = '';
    const text = fileText(s, f, (h, e) => {
      const o = where === 'header' ? h : e;
      value = JSON.stringify(o[field]);
      delete o[field];
      o.X_MARKER = 1;
    });
    return b(text.replace('"X_MARKER":1', key(value)));
  };
  const entryWithout = (field: string, key: (v: string) => string) => moved('entry', field, key);
  const headerWithout = (field: string, key: (v: string) => string) => moved('header', field, key);
  const required = { entry: 'ERR_MODEL_REQUIRED' };
  return [
    ['entry: isDeclined only in __proto__', entryWithout('isDeclined', (v) => `"__proto__":{"isDeclined":${v}}`), required],
    ['entry: isMIT only in constructor.prototype', entryWithout('isMIT', (v) => `"constructor":{"prototype":{"isMIT":${v}}}`), required],
    ['entry: orderId only in an escaped __proto__', entryWithout('orderId', (v) => `"\\u005f\\u005fproto\\u005f\\u005f":{"orderId":${v}}`), required],
    ['entry: transaction only in __proto__.__proto__', entryWithout('transaction', (v) => `"__proto__":{"__proto__":{"transaction":${v}}}`), required],
    ['header: mid only in __proto__', headerWithout('mid', (v) => `"__proto__":{"mid":${v}}`), HEADER],
    ['header: authorizationToken only in constructor.prototype', headerWithout('authorizationToken', (v) => `"constructor":{"prototype":{"authorizationToken":${v}}}`), HEADER],
    ['header: expiryDateUtc only in __proto__', headerWithout('expiryDateUtc', (v) => `"__proto__":{"expiryDateUtc":${v}}`), HEADER],
  ];
}

export function batchCases(s: Stack, f: Fixtures): BatchCase[] {
  const out: BatchCase[] = [];
  const add = (label: string, name: string, bytes: Buffer, expect: BatchExpect, ext = '.json') => out.push({ label: `batch · ${label}`, name, file: `abuse-${out.length + 1}${ext}`, bytes, expect });
  for (const [name, bytes] of malformed(s, f)) add('malformed JSON', name, bytes, SYNTAX);
  for (const [name, bytes, ext] of truncated(s, f)) add('truncated file', name, bytes, SYNTAX, ext);
  for (const c of huge(s, f)) add('huge file', c.name, c.bytes, c.expect, c.file);
  for (const [name, bytes, expect] of nested(s, f)) add('deeply nested JSON', name, bytes, expect);
  for (const [name, bytes] of encodings(s, f)) add('wrong encoding', name, bytes, SYNTAX);
  for (const [name, bytes, expect] of polluting(s, f)) add('prototype pollution', name, bytes, expect);
  return out;
}
