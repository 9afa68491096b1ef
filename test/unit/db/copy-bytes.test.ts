// The intake worker's COPY rows as bytes (copy-orders.ts): the same lines as the text, filtered whole, sent whole.
import { describe, expect, it } from 'vitest';
import { CopyBytes, copyLines, keepLines, ORDER_COLUMNS, sendCopy } from '../../../src/db/queries/copy-orders.ts';
import { Writable } from 'node:stream';

type Row = Record<(typeof ORDER_COLUMNS)[number], unknown>;
const row = (i: number, request: unknown): Row => Object.fromEntries(ORDER_COLUMNS.map((c) => [c, c === 'request' ? request : c === 'sequence_number' ? i : c === 'decline_advice' ? null : `${c}-${i}`])) as Row;

describe('COPY rows as bytes', () => {
  it('gives the same bytes as the text, through growth, escapes and multi-byte characters', () => {
    const rows = Array.from({ length: 300 }, (_, i) => row(i, { note: `línea ${i}\n\ttab \\ ✓ ${'x'.repeat(i * 40)}` }));
    const bytes = new CopyBytes(64);
    for (const r of rows) bytes.add(r);
    expect(bytes.rows).toBe(300);
    const taken = bytes.take();
    expect(Buffer.from(taken).toString('utf8')).toBe(copyLines(rows));
    expect(bytes.rows).toBe(0);
    bytes.add(rows[1]!);
    expect(Buffer.from(bytes.take()).toString('utf8')).toBe(copyLines([rows[1]!]));
  });

  it('keeps the lines asked for, each whole', () => {
    const rows = [row(1, { a: 'é\n' }), row(2, { b: 2 }), row(3, { c: '✓' })];
    const bytes = new CopyBytes();
    for (const r of rows) bytes.add(r);
    expect(keepLines(bytes.take(), [true, false, true]).toString('utf8')).toBe(copyLines([rows[0]!, rows[2]!]));
  });

  it('sends bytes larger than one CopyData piece whole and in order', async () => {
    const data = new Uint8Array(Buffer.from('0123456789'.repeat(300_000)));
    const got: Buffer[] = [];
    const stream = new Writable({ write: (chunk: Buffer, _enc, cb) => void (got.push(chunk), cb()) });
    await sendCopy(stream, data);
    expect(got.length).toBeGreaterThan(1);
    expect(Buffer.concat(got).equals(Buffer.from(data))).toBe(true);
  });
});
