// transaction.merchantAdviceCode and transaction.priorAttempts, from their schema: every leaf
// gets bad values of each kind its schema rules out (wrong type, wrong format, too long, empty,
// missing), seeded, and each is a field error at its exact path, through evaluate and a batch
// entry alike; the spelling variants the other fields accept are accepted here too.
import { describe, expect, it } from 'vitest';
import type { TSchema } from '@sinclair/typebox';
import { MAX_PRIOR_ATTEMPTS, PriorAttemptSchema, TransactionSchema, validateBatchEntry, validateEvaluate, type Validation } from '../../../src/domain/index.ts';
import { FORMAT_CHECKS } from '../../../src/domain/formats.ts';
import { seeded } from '../../helpers/seeded.ts';
import { mitRequest } from './fixtures.ts';
import { errorsOf, expectValid, withField } from './helpers.ts';

type Obj = Record<string, unknown>;
const random = seeded(Number(process.env.RESCUED_TEST_SEED ?? 2611));

const GOOD_PRIOR = { timestampUtc: '2026-11-01T10:00:00.000Z', responseCode: '51', merchantAdviceCode: '02' };

/** The request with one good earlier attempt, then `path` (under transaction) set to `value`. */
function request(path: string, value: unknown): Obj {
  const base = withField(mitRequest(), 'transaction.priorAttempts', [GOOD_PRIOR]);
  return withField(base, `transaction.${path}`, value);
}

const VALIDATORS: [string, (r: Obj) => Validation<unknown>][] = [
  ['evaluate', (r) => validateEvaluate(r, { mode: 'production' })],
  ['batch entry', (r) => validateBatchEntry({ ...r, sequenceNumber: 1 }, { mode: 'production' })],
];

/** A string of letters and punctuation: no format of the model accepts it. */
function junk(): string {
  const chars = 'abcXYZ-_!? .';
  return Array.from({ length: 1 + Math.floor(random() * 12) }, () => chars[Math.floor(random() * chars.length)]).join('');
}

/** Bad values of a leaf string schema, each with the code it must give. */
function badValues(schema: TSchema, required: boolean): [unknown, string][] {
  const out: [unknown, string][] = [[true, 'ERR_MODEL_TYPE'], [{ x: 1 }, 'ERR_MODEL_TYPE'], [[], 'ERR_MODEL_TYPE'], [12.5, 'ERR_MODEL_TYPE']];
  if (schema.format !== undefined) {
    const check = FORMAT_CHECKS[schema.format as string]!;
    for (let i = 0; i < 5; i++) {
      const v = junk();
      const ok = check instanceof RegExp ? check.test(v) : check(v);
      if (!ok && !(v.trim() === '' && !required)) out.push([v, 'ERR_MODEL_FORMAT']);
    }
  }
  if (schema.maxLength !== undefined) out.push(['9'.repeat((schema.maxLength as number) + 1), 'ERR_MODEL_FORMAT']);
  if (schema.minLength !== undefined) out.push(['', 'ERR_MODEL_REQUIRED']);
  return out;
}

/** Every leaf of the new fields: [path under transaction, schema, required]. */
const LEAVES: [string, TSchema, boolean][] = [
  ['merchantAdviceCode', TransactionSchema.properties.merchantAdviceCode, false],
  ...Object.entries(PriorAttemptSchema.properties).map(([k, s]): [string, TSchema, boolean] => [`priorAttempts[0].${k}`, s, ((PriorAttemptSchema.required ?? []) as string[]).includes(k)]),
];

describe('the new request fields, from their schema', () => {
  it('covers every leaf the schema has', () => {
    expect(LEAVES.map((l) => l[0])).toEqual(['merchantAdviceCode', 'priorAttempts[0].timestampUtc', 'priorAttempts[0].responseCode', 'priorAttempts[0].merchantAdviceCode']);
  });

  for (const [name, validate] of VALIDATORS) {
    it(`${name}: every bad value of every leaf is a field error at its path`, () => {
      let checked = 0;
      for (const [path, schema, required] of LEAVES) {
        for (const [value, code] of badValues(schema, required)) {
          const r = validate(request(path, value));
          expect(errorsOf(r), `${path} = ${JSON.stringify(value)}`).toEqual([{ field: `transaction.${path}`, code }]);
          checked++;
        }
        if (required) expect(errorsOf(validate(request(path, undefined)))).toEqual([{ field: `transaction.${path}`, code: 'ERR_MODEL_REQUIRED' }]);
      }
      expect(checked).toBeGreaterThan(25);
    });

    it(`${name}: the list is bounded and each element must be an object`, () => {
      const many = Array.from({ length: MAX_PRIOR_ATTEMPTS + 1 }, () => GOOD_PRIOR);
      expect(errorsOf(validate(request('priorAttempts', many)))).toEqual([{ field: 'transaction.priorAttempts', code: 'ERR_MODEL_FORMAT' }]);
      expectValid(validate(request('priorAttempts', many.slice(1))));
      expect(errorsOf(validate(request('priorAttempts', 'none')))).toEqual([{ field: 'transaction.priorAttempts', code: 'ERR_MODEL_TYPE' }]);
      expect(errorsOf(validate(request('priorAttempts', [GOOD_PRIOR, null])))).toEqual([{ field: 'transaction.priorAttempts[1]', code: 'ERR_MODEL_TYPE' }]);
      // An earlier attempt after the decline handed over is a mix-up, not an earlier attempt.
      const later = { ...GOOD_PRIOR, timestampUtc: '2026-12-01T00:00:00Z' };
      expect(errorsOf(validate(request('priorAttempts', [GOOD_PRIOR, later])))).toEqual([{ field: 'transaction.priorAttempts[1].timestampUtc', code: 'ERR_MODEL_RANGE' }]);
    });

    it(`${name}: accepts the spellings the other fields accept`, () => {
      const body = withField(mitRequest(), 'transaction.MerchantAdviceCode', 21);
      const tx = (body.transaction as Obj);
      tx.PRIORATTEMPTS = [
        { TimestampUtc: 'Sun, 01 Nov 2026 10:00:00 GMT', ResponseCode: '05', merchantadvicecode: 3 },
        { timestampUtc: '2026-11-02T10:00:00+01:00', responseCode: '51', merchantAdviceCode: null },
        { timestampUtc: '2026-11-03T10:00:00Z', responseCode: '51', merchantAdviceCode: ' 24 ' },
        { timestampUtc: '2026-11-04T10:00:00Z', responseCode: '51', merchantAdviceCode: '' },
      ];
      const value = expectValid(validate(body)) as { transaction: Obj };
      expect(value.transaction.merchantAdviceCode).toBe('21');
      expect(value.transaction.priorAttempts).toEqual([
        { timestampUtc: '2026-11-01T10:00:00.000Z', responseCode: '05', merchantAdviceCode: '03' },
        { timestampUtc: '2026-11-02T09:00:00.000Z', responseCode: '51' },
        { timestampUtc: '2026-11-03T10:00:00.000Z', responseCode: '51', merchantAdviceCode: '24' },
        { timestampUtc: '2026-11-04T10:00:00.000Z', responseCode: '51', merchantAdviceCode: '' },
      ]);
      // Both optional: a request without them is as valid as before.
      expectValid(validate(mitRequest()));
    });
  }
});
