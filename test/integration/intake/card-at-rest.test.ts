// No card number at rest outside the vault: a batch file is archived only when its raw bytes
// hold no card number anywhere; otherwise it is deleted after intake, and the ack says which.
// Before, a full number in a rejected entry, in a field the model drops, or in an entry
// without the `token` flag landed in the archive in clear.
import { beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DB_KINDS } from '../../helpers/db.ts';
import { useIntakeFixture, type IntakeFixture } from '../../helpers/intake.ts';
import { ingestFile } from '../../../src/intake/ingest.ts';
import { fileHasCardNumber } from '../../../src/intake/card-scan.ts';

function archived(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(readFileSync(p, 'latin1'));
    }
  };
  walk(join(root, 'archive'));
  return out;
}

describe.each(DB_KINDS)('card numbers in batch files on %s', (kind) => {
  const fixture = useIntakeFixture(kind);
  let f: IntakeFixture;
  beforeAll(() => {
    f = fixture();
  });

  const withExtra = (tag: string, extra: (e: Record<string, unknown>) => void) => {
    const batch = JSON.parse(f.variant('valid.json', tag)) as { requests: Array<Record<string, unknown>> };
    extra(batch.requests[0]!);
    return JSON.stringify(batch);
  };

  it.each([
    ['a rejected entry', (e: Record<string, unknown>) => { e.paymentMethod = { ...(e.paymentMethod as object), cardNumber: '5555555555554444', token: true }; e.transaction = 'broken'; }],
    ['a field the model drops', (e: Record<string, unknown>) => { e.notes = 'card 378282246310005'; }],
    ['additionalFields', (e: Record<string, unknown>) => { e.additionalFields = [{ key: 'pan', value: '4111 1111 1111 1111' }]; }],
  ])('a file with a card number in %s is deleted, not archived, and the ack says so', async (what, change) => {
    const res = await ingestFile(f.deps, f.drop(`pan-${what.replaceAll(' ', '-')}.json`, withExtra(what.replaceAll(' ', ''), change)));
    expect(res.input).toBe('deleted');
    expect(JSON.parse(readFileSync(res.ackPath, 'utf8'))).toMatchObject({ input: 'deleted' });
    for (const text of archived(f.root)) for (const pan of ['5555555555554444', '378282246310005', '4111 1111 1111 1111']) expect(text).not.toContain(pan);
  });

  it('a file with no card number anywhere is archived, and the ack says so', async () => {
    const res = await ingestFile(f.deps, f.drop('clean.json', f.variant('valid.json', 'clean')));
    expect(res).toMatchObject({ status: 'accepted', input: 'archived' });
    expect(JSON.parse(readFileSync(res.ackPath, 'utf8'))).toMatchObject({ input: 'archived' });
    expect(archived(f.root).some((t) => t.includes('"ORD-clean-'))).toBe(true);
  });

  it('finds a number split across two read chunks, and in a gzip file', async () => {
    const pad = ' '.repeat((1 << 20) - 8);
    const split = f.drop('split.json', `{"a":"${pad}4111111111111111"}`);
    expect(await fileHasCardNumber(split.path, split.name)).toBe(true);
    const gz = f.drop('broken-tail.json.gz', '{"requests":[{"x":"6011111111111117"', { gzip: true });
    expect(await fileHasCardNumber(gz.path, gz.name)).toBe(true);
    const ids = f.drop('ids.json', '{"mid":"6f1c2a7e-9b3d-4c5e-8f10-2a3b4c5d6e7f","amount":1999}');
    expect(await fileHasCardNumber(ids.path, ids.name)).toBe(false);
  });
});
