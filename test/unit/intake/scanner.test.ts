import { describe, expect, it } from 'vitest';
import { BatchScanner, BatchSyntaxError, type ScanItem } from '../../../src/intake/scanner.ts';

/** Scans `text` in chunks of `size` bytes (every size must give the same result). */
function scan(text: string, size = 7): ScanItem[] {
  const scanner = new BatchScanner();
  const buf = Buffer.from(text);
  const items: ScanItem[] = [];
  for (let i = 0; i < buf.length; i += size) items.push(...scanner.push(buf.subarray(i, i + size)));
  scanner.end();
  return items;
}

function syntaxError(text: string, size = 5): BatchSyntaxError {
  try {
    scan(text, size);
  } catch (err) {
    if (err instanceof BatchSyntaxError) return err;
    throw err;
  }
  throw new Error('no error');
}

const FILE = `{
  "mid": "m-1",
  "authorizationToken": "Bearer abc",
  "requests": [
    {"sequenceNumber": 1, "orderId": "a", "note": "brace } and \\" quote ]"},
    {"sequenceNumber": 2, "nested": {"x": [1, 2, {"y": "}"}]}}
  ],
  "expiryDateUtc": "2026-12-01T00:00:00Z"
}`;

describe('batch scanner', () => {
  it.each([1, 2, 3, 7, 64, 100_000])('finds header values and entries in chunks of %i bytes', (size) => {
    const items = scan(FILE, size);
    expect(items.filter((i) => i.kind === 'header')).toEqual([
      { kind: 'header', key: 'mid', value: 'm-1', bytes: 5 },
      { kind: 'header', key: 'authorizationToken', value: 'Bearer abc', bytes: 12 },
      { kind: 'header', key: 'expiryDateUtc', value: '2026-12-01T00:00:00Z', bytes: 22 },
    ]);
    const entries = items.filter((i) => i.kind === 'entry');
    expect(entries.map((e) => JSON.parse(e.text))).toEqual([
      { sequenceNumber: 1, orderId: 'a', note: 'brace } and " quote ]' },
      { sequenceNumber: 2, nested: { x: [1, 2, { y: '}' }] } },
    ]);
    expect(entries.map((e) => [e.index, e.line, e.column])).toEqual([
      [0, 5, 5],
      [1, 6, 5],
    ]);
    expect(FILE.slice(entries[0]!.offset, entries[0]!.offset + 1)).toBe('{');
  });

  it('accepts scalar, object and array header values, and an empty requests array', () => {
    const items = scan('{"a":12,"b":true,"c":null,"d":{"x":1},"e":[1,[2]],"requests":[]}');
    expect(items).toEqual([
      { kind: 'header', key: 'a', value: 12, bytes: 2 },
      { kind: 'header', key: 'b', value: true, bytes: 4 },
      { kind: 'header', key: 'c', value: null, bytes: 4 },
      { kind: 'header', key: 'd', value: { x: 1 }, bytes: 7 },
      { kind: 'header', key: 'e', value: [1, [2]], bytes: 7 },
    ]);
  });

  it('hands over non-object entries as they are (the validator refuses them)', () => {
    expect(scan('{"requests":[1, "x", null ,[2]]}').map((i) => (i.kind === 'entry' ? i.text : ''))).toEqual(['1', '"x"', 'null', '[2]']);
  });

  it('matches the requests key in any capitalisation', () => {
    expect(scan('{"Requests":[{"a":1}]}')).toHaveLength(1);
  });

  it.each([
    ['', 'the file is empty', 1, 1],
    ['[1]', 'expected { at the start of the file', 1, 1],
    ['{"mid":"x",\n"requests":[{"a":1},\n{"b":2}', 'unexpected end of file', 3, 8],
    ['{"mid":"x"}', 'the file has no "requests" array', 1, 12],
    ['{"requests":[{"a":1} {"b":2}]}', 'expected , or ] after an entry', 1, 22],
    ['{"requests":[{"a":1},]}', 'expected a value', 1, 22],
    ['{"mid" "x","requests":[]}', 'expected : after a key', 1, 8],
    ['{"mid":"x",}', 'expected a key', 1, 12],
    ['{"requests":{}}', '"requests" must be an array', 1, 13],
    ['{"requests":[]}\n{', 'unexpected content after the end of the document', 2, 1],
    ['{"requests":[],"requests":[]}', '"requests" appears twice', 1, 27],
    ['{"mid":tru,"requests":[]}', 'invalid value for "mid"', 1, 8],
  ])('reports %j as a syntax error with offset, line and column', (text, message, line, column) => {
    const err = syntaxError(text);
    expect(err.message).toContain(message);
    expect([err.line, err.column]).toEqual([line, column]);
  });

  it('streams 100,000 entries chunk by chunk', () => {
    const scanner = new BatchScanner();
    scanner.push(Buffer.from('{"requests":['));
    const entry = Buffer.from('{"orderId":"x","amount":100},');
    let count = 0;
    const block = Buffer.concat(Array.from({ length: 1000 }, () => entry));
    for (let i = 0; i < 100; i++) count += scanner.push(block).length;
    scanner.push(Buffer.from('{"last":true}]}'));
    scanner.end();
    expect(count).toBe(100_000);
  });
});
