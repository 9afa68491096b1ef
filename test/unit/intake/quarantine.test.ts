// The quarantine's redacted copy: card numbers masked wherever the read chunks split them,
// CVVs next to their label removed, every other byte kept; the input removed; an ack.
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { quarantineFile } from '../../../src/intake/quarantine.ts';
import { retryDelay } from '../../../src/intake/queue.ts';

const root = mkdtempSync(join(tmpdir(), 'rescued-quarantine-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function input(name: string, bytes: Buffer) {
  for (const d of ['inbound', 'outbound']) mkdirSync(join(root, d), { recursive: true });
  const path = join(root, 'inbound', name);
  writeFileSync(path, bytes);
  return { merchantId: 'm', mid: 'mid-1', path, name, outboundDir: join(root, 'outbound') };
}

const error = { code: 'ERR_INTAKE_STORAGE_REFUSED', message: 'refused' };

describe('quarantine', () => {
  // A filler entry places the first card number across the 1 MiB read boundary; more follow.
  const head = '{"requests":[\n';
  const card = '{"orderId":"o","notes":"card 4111111111111111 cvv 123"},\n';
  const fillerLength = (1 << 20) - 8 - card.indexOf('4111') - head.length;
  const filler = `{"pad":"${'x'.repeat(fillerLength - 12)}"},\n`;
  const text = `${head}${filler}${card.repeat(2000)}{}]}`;

  it('places a card number across the read boundary', () => {
    expect(text.slice((1 << 20) - 8, (1 << 20) + 8)).toBe('4111111111111111');
  });

  it.each([
    ['plain', 'big.json', (t: string) => Buffer.from(t), (b: Buffer) => b.toString('utf8')],
    ['gzip', 'big.json.gz', (t: string) => gzipSync(t), (b: Buffer) => gunzipSync(b).toString('utf8')],
  ])('keeps a redacted copy of a %s file, acks it and removes the input', async (_kind, name, encode, decode) => {
    const file = input(name, encode(text));
    const q = await quarantineFile(join(root, 'quarantine'), file, error, new Date('2026-11-25T10:00:00Z'), () => new Date('2026-11-25T10:00:01Z'));
    expect(q.path).toBe(join(root, 'quarantine', 'mid-1', '2026-11-25', `2026-11-25T10-00-01-000Z-${name}`));
    const copy = decode(readFileSync(q.path!));
    expect(copy).not.toContain('4111111111111111');
    expect(copy).not.toContain('cvv 123');
    expect(copy).toBe(text.replaceAll('card 4111111111111111 cvv 123', 'card 411111******1111 cvv [redacted]'));
    expect(existsSync(file.path)).toBe(false);
    expect(JSON.parse(readFileSync(q.ackPath, 'utf8'))).toMatchObject({ status: 'rejected', input: 'quarantined', error, batchId: null, sha256: q.sha256 });
  });

  it('masks the spellings of the one detector in the copy: dots, runs of spaces, JSON escapes, full-width digits', async () => {
    const escaped = [...'5555555555554444'].map((d) => `\\u003${d}`).join('');
    const fullWidth = String.fromCharCode(...[...'6011111111111117'].map((d) => 0xff10 + Number(d)));
    const spelled = `{"requests":[{"a":"5555.5555.5555.4444","b":"3782  822463  10005","c":"${escaped}","d":"${fullWidth}"}]}`;
    const q = await quarantineFile(join(root, 'quarantine'), input('spelled.json', Buffer.from(spelled)), error, new Date());
    expect(readFileSync(q.path!, 'utf8')).toBe('{"requests":[{"a":"555555******4444","b":"378282*****0005","c":"555555******4444","d":"601111******1117"}]}');
  });

  it('removes an unreadable input all the same, with an ack and no copy', async () => {
    const file = input('broken.json.gz', Buffer.from('not gzip at all 4111111111111111'));
    const q = await quarantineFile(join(root, 'quarantine'), file, error, new Date());
    expect(q.path).toBeNull();
    expect(existsSync(file.path)).toBe(false);
    expect(readdirSync(join(root, 'quarantine', 'mid-1'), { recursive: true, encoding: 'utf8' }).filter((n) => n.includes('broken'))).toEqual([]);
    expect(JSON.parse(readFileSync(q.ackPath, 'utf8'))).toMatchObject({ input: 'quarantined', sha256: '' });
  });

  it('doubles the delay between tries up to retryMaxMs', () => {
    const policy = { maxTries: 8, retryBaseMs: 5000, retryMaxMs: 300_000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((t) => retryDelay(policy, t))).toEqual([5000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000]);
  });
});
