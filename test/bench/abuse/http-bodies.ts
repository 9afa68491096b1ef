// Hostile bodies, by category, made from a route's valid body where one is needed: the
// parser-level ones every JSON route refuses alike (malformed, truncated, too large, too deep,
// wrongly encoded, prototype-polluting), before any route code runs.
import { CANARY } from './verdict.ts';

export interface Body {
  name: string;
  bytes: Buffer;
  contentType?: string;
  /** Extra headers (Transfer-Encoding, a Content-Length that lies). */
  headers?: Record<string, string>;
  endEarly?: boolean;
}

const b = (s: string) => Buffer.from(s, 'utf8');
const json = (name: string, text: string): Body => ({ name, bytes: b(text) });

export function malformed(): Body[] {
  return [
    json('unclosed object', '{"a":'),
    json('bare key', '{a:1}'),
    json('single quotes', "{'a':1}"),
    json('trailing comma', '{"a":1,}'),
    json('NaN literal', '{"a":NaN}'),
    json('leading zero', '{"a":01}'),
    json('raw control character in a string', '{"a":"x\u0001y"}'),
    json('two documents', '{"a":1}{"b":2}'),
    json('reversed braces', '}{'),
    json('empty body', ''),
    json('comment', '// x\n{}'),
    json('garbage bytes', '\u0007\u0008\u0016xyz'),
  ];
}

export function truncated(good: unknown): Body[] {
  const text = JSON.stringify(good);
  const cuts = [0.1, 0.5, 0.9].map((f) => Math.max(1, Math.floor(text.length * f)));
  return [
    ...cuts.map((n) => json(`cut at byte ${n} of ${text.length}`, text.slice(0, n))),
    json('last byte missing', text.slice(0, -1)),
  ];
}

/** A Content-Length longer than what is sent, then our side closed: the server must not wait or answer 5xx. */
export function lyingLength(good: unknown): Body {
  const text = JSON.stringify(good);
  return { name: 'Content-Length 1,000 bytes longer than the body, connection closed', bytes: b(text), headers: { 'content-length': String(text.length + 1000) }, endEarly: true };
}

export function huge(limit: number): Body[] {
  const filler = 'a'.repeat(limit + 1024);
  const data = b(`{"x":"${'b'.repeat(limit + 64)}"}`);
  const chunked = Buffer.concat([b(`${data.length.toString(16)}\r\n`), data, b('\r\n0\r\n\r\n')]);
  return [
    json(`${limit + 1033}-byte body`, `{"x":"${filler}"}`),
    { name: 'Content-Length of 10 GB, 2 bytes sent', bytes: b('{}'), headers: { 'content-length': '10000000000' }, endEarly: true },
    { name: `chunked body past ${limit} bytes`, bytes: chunked, headers: { 'transfer-encoding': 'chunked' } },
  ];
}

export function nested(): Body[] {
  const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  return [
    json('objects 40 deep', objects(40)),
    json('objects 10,000 deep', objects(10_000)),
    json('arrays 100,000 deep', arrays(100_000)),
    json('arrays 33 deep inside a field', `{"additionalFields":${arrays(33)}}`),
  ];
}

const utf16 = (text: string, bom: boolean, be = false) => {
  const le = Buffer.from(text, 'utf16le');
  if (be) for (let i = 0; i < le.length; i += 2) [le[i], le[i + 1]] = [le[i + 1]!, le[i]!];
  return Buffer.concat([bom ? Buffer.from(be ? [0xfe, 0xff] : [0xff, 0xfe]) : Buffer.alloc(0), le]);
};

/** Bytes that are not UTF-8 JSON, and JSON labelled as something else. */
export function encodings(good: unknown): Body[] {
  const text = JSON.stringify(good);
  const inString = (bytes: number[]) => Buffer.concat([b('{"orderId":"ORD-'), Buffer.from(bytes), b(`",${text.slice(1)}`)]);
  return [
    { name: 'invalid UTF-8 (0xFF) in a string', bytes: inString([0xff]) },
    { name: 'Latin-1 é (0xE9) in a string', bytes: inString([0xe9, 0x41]) },
    { name: 'overlong UTF-8 (0xC0 0xAF) in a string', bytes: inString([0xc0, 0xaf]) },
    { name: 'lone continuation byte (0x80) in a string', bytes: inString([0x80]) },
    { name: 'UTF-16LE with a BOM', bytes: utf16(text, true) },
    { name: 'UTF-16BE with a BOM', bytes: utf16(text, true, true) },
    { name: 'UTF-16LE without a BOM', bytes: utf16(text, false) },
    { name: 'UTF-16LE labelled charset=utf-16', bytes: utf16(text, true), contentType: 'application/json; charset=utf-16' },
    { name: 'JSON as text/plain', bytes: b(text), contentType: 'text/plain' },
    { name: 'JSON as application/xml', bytes: b(text), contentType: 'application/xml' },
    { name: 'JSON as multipart/form-data', bytes: b(text), contentType: 'multipart/form-data; boundary=x' },
    { name: 'JSON as application/octet-stream', bytes: b(text), contentType: 'application/octet-stream' },
  ];
}

export const UNSUPPORTED = new Set(['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream']);

/** `__proto__` and `constructor.prototype` keys: at the top, inside a valid body, in arrays, escaped. */
export function polluting(good: unknown): Body[] {
  const text = JSON.stringify(good);
  const inside = (key: string) => `{${key},${text.slice(1)}`;
  const payload = `{"${CANARY}":"yes"}`;
  return [
    json('__proto__ at the top', `{"__proto__":${payload}}`),
    json('__proto__ beside valid fields', inside(`"__proto__":${payload}`)),
    json('constructor.prototype beside valid fields', inside(`"constructor":{"prototype":${payload}}`)),
    json('__proto__ inside an array', inside(`"items":[{"__proto__":${payload}}]`)),
    json('__proto__ as a string value (harmless, but it must not reach a lookup)', inside(`"__proto__":"${CANARY}"`)),
    json('__proto__ nested in an object', inside(`"extra":{"deeper":{"__proto__":${payload}}}`)),
    json('__proto__ spelt with \\u escapes', inside(`"\\u005f\\u005fproto\\u005f\\u005f":${payload}`)),
    json('constructor.prototype spelt with \\u escapes', inside(`"constructor":{"\\u0070rototype":${payload}}`)),
  ];
}

/** The same, as a form (the token endpoint and the console sign-in read forms). */
export function pollutingForms(fields: string): Body[] {
  const form = (name: string, text: string): Body => ({ name, bytes: b(text), contentType: 'application/x-www-form-urlencoded' });
  return [
    form('form __proto__[key]', `__proto__[${CANARY}]=yes&${fields}`),
    form('form constructor[prototype][key]', `constructor[prototype][${CANARY}]=yes&${fields}`),
    form('form __proto__ as a field', `__proto__=${CANARY}&${fields}`),
  ];
}

/** JSON of the wrong shape at the top: every route reads an object. */
export const TOP_LEVEL_WRONG = [json('a JSON array', '[]'), json('a JSON number', '42'), json('a JSON string', '"text"'), json('JSON true', 'true')];

/** Keys that name Object.prototype's members, which a lookup in a plain object would find. */
export const PROTOTYPE_NAMES = '"toString":"x","valueOf":1,"hasOwnProperty":[],"__defineGetter__":{},"isPrototypeOf":null,"propertyIsEnumerable":true,"$where":"1"';
