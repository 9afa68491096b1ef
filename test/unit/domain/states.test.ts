// Order statuses and transitions (DESIGN.md §2 "Statuses").
import { describe, it, expect } from 'vitest';
import { RescuedError } from '../../../src/errors.ts';
import { STATUSES, TRANSITIONS, assertTransition, canTransition, isFinal, isStatus, type Status } from '../../../src/domain/index.ts';

const LEGAL: Array<[Status, Status]> = [
  ['CHALLENGE', 'APPROVED'], ['CHALLENGE', 'DECLINED'], ['CHALLENGE', 'EXPIRED'],
  ['SUBMITTED', 'PENDING'], ['SUBMITTED', 'EXPIRED'], ['SUBMITTED', 'CANCELLED'],
  ['PENDING', 'PROCESSING'], ['PENDING', 'EXPIRED'], ['PENDING', 'CANCELLED'],
  ['PROCESSING', 'PENDING'], ['PROCESSING', 'APPROVED'], ['PROCESSING', 'EXPIRED'], ['PROCESSING', 'CANCELLED'],
];

describe('statuses', () => {
  it('are the eight the spec names', () => {
    expect([...STATUSES].sort()).toEqual(['APPROVED', 'CANCELLED', 'CHALLENGE', 'DECLINED', 'EXPIRED', 'PENDING', 'PROCESSING', 'SUBMITTED']);
    expect(isStatus('PENDING')).toBe(true);
    expect(isStatus('Eligible')).toBe(false);
  });

  it('APPROVED, DECLINED, EXPIRED and CANCELLED are final; the others are not', () => {
    expect(STATUSES.filter(isFinal).sort()).toEqual(['APPROVED', 'CANCELLED', 'DECLINED', 'EXPIRED']);
  });
});

describe('transitions', () => {
  it.each(LEGAL)('%s → %s is allowed', (from, to) => {
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it('no other move between statuses is allowed', () => {
    const legal = new Set(LEGAL.map(([a, b]) => `${a}>${b}`));
    for (const from of STATUSES) {
      for (const to of STATUSES) {
        expect(canTransition(from, to), `${from} → ${to}`).toBe(legal.has(`${from}>${to}`));
      }
    }
    expect(Object.values(TRANSITIONS).flat()).toHaveLength(LEGAL.length);
  });

  it('a CIT starts APPROVED, DECLINED or CHALLENGE; an MIT starts SUBMITTED', () => {
    for (const to of ['APPROVED', 'DECLINED', 'CHALLENGE'] as const) {
      expect(canTransition(null, to, 'CIT')).toBe(true);
      expect(canTransition(null, to, 'MIT')).toBe(false);
    }
    expect(canTransition(null, 'SUBMITTED', 'MIT')).toBe(true);
    expect(canTransition(null, 'SUBMITTED', 'CIT')).toBe(false);
    expect(canTransition(null, 'SUBMITTED')).toBe(true);
    expect(canTransition(null, 'PENDING')).toBe(false);
  });

  it('an illegal move throws ERR_MODEL_ILLEGAL_TRANSITION (409)', () => {
    let caught: unknown;
    try {
      assertTransition('APPROVED', 'CANCELLED');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RescuedError);
    expect(caught).toMatchObject({ code: 'ERR_MODEL_ILLEGAL_TRANSITION', status: 409, retryable: false });
    expect((caught as Error).message).toBe('An order cannot move from APPROVED to CANCELLED.');
    expect(() => assertTransition(null, 'PENDING', 'MIT')).toThrow('An order cannot move from a new MIT order to PENDING.');
  });

  it('SUBMITTED cannot be approved without an attempt', () => {
    expect(() => assertTransition('SUBMITTED', 'APPROVED')).toThrow(RescuedError);
  });
});
