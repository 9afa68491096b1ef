// The request examples under samples/requests stay valid as the model changes.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { validateBatchEntry, validateBatchHeader, validateEvaluate, validateTokenize } from '../../../src/domain/index.ts';
import { expectValid } from './helpers.ts';

const sample = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../samples/requests/${name}`, import.meta.url), 'utf8'));

describe('samples/requests', () => {
  it.each(['evaluate-cit.json', 'evaluate-mit.json'])('%s is a valid evaluate request', (name) => {
    const r = validateEvaluate(sample(name), { mode: 'sandbox' });
    expectValid(r);
    expect(r.warnings).toEqual([]);
  });

  it('tokenize.json is a valid tokenize request', () => {
    expectValid(validateTokenize(sample('tokenize.json')));
  });

  it('batch-layout.json has a valid header and valid entries in the layout spelling', () => {
    const file = sample('batch-layout.json') as { requests: unknown[] };
    const header = expectValid(validateBatchHeader(file));
    expect(file.requests).toHaveLength(2);
    const values = file.requests.map((e) => expectValid(validateBatchEntry(e, { mode: 'sandbox', defaultExpiryDateUtc: header.expiryDateUtc })));
    expect(values.map((v) => [v.sequenceNumber, v.isDeclined, v.expiryDateUtc])).toEqual([
      [1, true, '2026-12-01T00:00:00.000Z'],
      [2, true, '2026-12-01T00:00:00.000Z'],
    ]);
  });
});
