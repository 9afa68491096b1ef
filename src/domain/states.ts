// Order statuses and their transitions (DESIGN.md §2 "Statuses"), as data: one table, and
// one function that refuses any move the table does not list.
//
//   CIT:  (none) → APPROVED | DECLINED | CHALLENGE;  CHALLENGE → APPROVED | DECLINED | EXPIRED
//   MIT:  (none) → SUBMITTED → PENDING ⇄ PROCESSING → APPROVED | EXPIRED | CANCELLED
//
// SUBMITTED → EXPIRED: a decline that can never be rescued (hard decline, "do not try
// again") ends at once. PENDING → EXPIRED: the deadline passes between attempts.
// PROCESSING → EXPIRED: the last attempt failed and nothing may follow. Cancel is allowed
// while not final (SUBMITTED, PENDING, PROCESSING); an attempt already in flight finishes
// and its approval is voided. Refunds are records on an APPROVED order, not a status.
import { RescuedError } from '../errors.ts';

export const STATUSES = ['APPROVED', 'DECLINED', 'CHALLENGE', 'SUBMITTED', 'PENDING', 'PROCESSING', 'EXPIRED', 'CANCELLED'] as const;
export type Status = (typeof STATUSES)[number];

export type CallKind = 'CIT' | 'MIT';

/** Statuses a new order may start in, by kind of call. */
export const INITIAL_STATUSES = {
  CIT: ['APPROVED', 'DECLINED', 'CHALLENGE'],
  MIT: ['SUBMITTED'],
} as const satisfies Record<CallKind, readonly Status[]>;

export const TRANSITIONS = {
  CHALLENGE: ['APPROVED', 'DECLINED', 'EXPIRED'],
  SUBMITTED: ['PENDING', 'EXPIRED', 'CANCELLED'],
  PENDING: ['PROCESSING', 'EXPIRED', 'CANCELLED'],
  PROCESSING: ['PENDING', 'APPROVED', 'EXPIRED', 'CANCELLED'],
  APPROVED: [],
  DECLINED: [],
  EXPIRED: [],
  CANCELLED: [],
} as const satisfies Record<Status, readonly Status[]>;

export function isStatus(value: unknown): value is Status {
  return typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
}

/** A final status has no way out. */
export function isFinal(status: Status): boolean {
  return TRANSITIONS[status].length === 0;
}

/** Whether `from` → `to` is in the table; `from` null is a new order (of `kind`, if given). */
export function canTransition(from: Status | null, to: Status, kind?: CallKind): boolean {
  if (from === null) {
    const starts: readonly Status[] = kind ? INITIAL_STATUSES[kind] : [...INITIAL_STATUSES.CIT, ...INITIAL_STATUSES.MIT];
    return starts.includes(to);
  }
  return (TRANSITIONS[from] as readonly Status[]).includes(to);
}

/** Throws ERR_MODEL_ILLEGAL_TRANSITION (409) unless `from` → `to` is in the table. */
export function assertTransition(from: Status | null, to: Status, kind?: CallKind): void {
  if (!canTransition(from, to, kind)) {
    const start = from !== null ? from : kind ? `a new ${kind} order` : 'a new order';
    throw new RescuedError('ERR_MODEL_ILLEGAL_TRANSITION', `An order cannot move from ${start} to ${to}.`);
  }
}
