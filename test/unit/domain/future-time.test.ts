// A decline is a past event: transaction.timestampUtc ahead of the server's clock by more than
// the allowed skew (api.clockSkewSeconds) is a field error, ERR_MODEL_TIME_IN_FUTURE, for
// evaluate requests and batch entries alike; within the skew, or in the past, it is accepted.
// payer.birthdate may not be after today anywhere on Earth. Offsets around the bound are
// generated from a seed (printed on failure), in every spelling the model reads.
import { describe, expect, it } from 'vitest';
import { validateBatchEntry, validateEvaluate, validateTransmit } from '../../../src/domain/index.ts';
import { seeded } from '../../helpers/seeded.ts';
import { citRequest, layoutEntry, mitRequest } from './fixtures.ts';

const NOW = new Date('2026-11-28T05:00:00.000Z');
const SEED = 2811;
const CASES = 300;

type Req = Record<string, unknown>;
const withTime = (req: Req, iso: string): Req => ({ ...req, transaction: { ...(req.transaction as Req), timestampUtc: iso } });
const withBirthdate = (req: Req, date: string): Req => ({ ...req, payer: { ...(req.payer as Req), birthdate: date } });
const futureErrors = (errors: Array<{ field: string; code: string }>) => errors.filter((e) => e.code === 'ERR_MODEL_TIME_IN_FUTURE');

/** The time as a merchant may spell it: ISO with Z, ISO with an offset, RFC 1123. */
function spelling(t: Date, which: number): string {
  if (which === 0) return t.toISOString();
  if (which === 1) {
    const shifted = new Date(t.getTime() - 5 * 3_600_000);
    return `${shifted.toISOString().slice(0, 19)}-05:00`;
  }
  return t.toUTCString();
}

describe('a decline time in the future', () => {
  const kinds = [
    ['evaluate (CIT)', (req: Req, skewMs: number) => validateEvaluate(req, { mode: 'sandbox', now: NOW, clockSkewMs: skewMs }), citRequest],
    ['evaluate (MIT)', (req: Req, skewMs: number) => validateEvaluate(req, { mode: 'sandbox', now: NOW, clockSkewMs: skewMs }), mitRequest],
    ['batch entry', (req: Req, skewMs: number) => validateBatchEntry(req, { mode: 'sandbox', now: NOW, clockSkewMs: skewMs, defaultExpiryDateUtc: '2026-12-31T00:00:00.000Z' }), layoutEntry],
  ] as const;

  it.each(kinds)('%s: refused beyond the skew, accepted within it (generated offsets around the bound)', (_name, validate, build) => {
    const random = seeded(SEED);
    for (let i = 0; i < CASES; i++) {
      const skewMs = [0, 60_000, 300_000, 3_600_000][Math.floor(random() * 4)]!;
      // Within a few seconds of the bound, either side; RFC 1123 and the offset form carry whole seconds.
      const which = Math.floor(random() * 3);
      const offsetS = Math.round((random() - 0.5) * 20);
      const offsetMs = offsetS * 1000 + (which === 0 ? Math.floor(random() * 1000) - 500 : 0);
      const t = new Date(NOW.getTime() + skewMs + offsetMs);
      const text = spelling(t, which);
      const late = Date.parse(text) > NOW.getTime() + skewMs;
      const r = validate(withTime(build(), text), skewMs);
      const context = `seed ${SEED} case ${i}: ${text} with skew ${skewMs} ms`;
      if (late) {
        expect(r.ok, context).toBe(false);
        if (!r.ok) expect(futureErrors(r.errors), context).toEqual([expect.objectContaining({ field: 'transaction.timestampUtc', code: 'ERR_MODEL_TIME_IN_FUTURE' })]);
      } else {
        expect(r.ok ? [] : r.errors, context).toEqual([]);
      }
    }
  });

  it('the default skew is 5 minutes', () => {
    const at = (ms: number) => validateEvaluate(withTime(citRequest(), new Date(NOW.getTime() + ms).toISOString()), { mode: 'sandbox', now: NOW });
    expect(at(300_000).ok).toBe(true);
    expect(at(300_001).ok).toBe(false);
    // The README's old sample: two days ahead.
    expect(at(2 * 86_400_000).ok).toBe(false);
  });

  it('a time long past is accepted, and the message names the bound', () => {
    expect(validateEvaluate(withTime(citRequest(), '2020-01-01T00:00:00.000Z'), { mode: 'sandbox', now: NOW }).ok).toBe(true);
    const r = validateEvaluate(withTime(citRequest(), '2026-11-30T14:05:09.000Z'), { mode: 'sandbox', now: NOW, clockSkewMs: 300_000 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.message).toContain('in the future (more than 300 s ahead of 2026-11-28T05:00:00.000Z)');
  });

  it('transmit keeps the record and drops the time, with a warning (its model learns from the hour)', () => {
    const r = validateTransmit(withTime(citRequest(), '2026-11-30T14:05:09.000Z'), { mode: 'sandbox', now: NOW });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect((r.value.transaction as Req).timestampUtc).toBeUndefined();
      expect(r.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'transaction.timestampUtc', code: 'ERR_MODEL_TIME_IN_FUTURE' })]));
    }
  });
});

describe('a birthdate in the future', () => {
  // At 05:00 UTC on 28 November it is already the 28th everywhere, and the 29th nowhere yet
  // (UTC+14 reaches the 29th at 10:00 UTC).
  it.each([
    ['1990-05-01', true],
    ['2026-11-28', true],
    ['2026-11-29', false],
    ['2027-01-01', false],
  ])('%s: accepted %s', (date, ok) => {
    const r = validateEvaluate(withBirthdate(citRequest(), date), { mode: 'sandbox', now: NOW });
    expect(r.ok).toBe(ok);
    if (!r.ok) expect(futureErrors(r.errors)).toEqual([expect.objectContaining({ field: 'payer.birthdate' })]);
  });

  it('is tomorrow somewhere once UTC+14 has reached it', () => {
    const late = new Date('2026-11-28T10:00:00.000Z');
    expect(validateEvaluate(withBirthdate(citRequest(), '2026-11-29'), { mode: 'sandbox', now: late, clockSkewMs: 0 }).ok).toBe(true);
    expect(validateEvaluate(withBirthdate(citRequest(), '2026-11-30'), { mode: 'sandbox', now: late, clockSkewMs: 0 }).ok).toBe(false);
  });
});
