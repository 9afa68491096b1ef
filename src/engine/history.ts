// The planner's histories, read from the attempts table (recorder.ts replanHistories, for a
// group of orders in one statement): each order's attempts, and the card's attempts at this
// merchant across all its orders in the networks' 30-day window.
import type { AttemptRow } from '../db/queries/attempts.ts';
import type { AttemptRecord } from './plan-types.ts';
import { DAY_MS } from '../calendar.ts';

/** The longest window any network rule looks back over. */
export const CARD_WINDOW_MS = 30 * DAY_MS;

export function toRecord(a: Pick<AttemptRow, 'startedAt' | 'responseCode' | 'adviceCode' | 'status'>): AttemptRecord {
  // An attempt still in flight counts as made (the issuer may have seen it) and not approved.
  return { at: a.startedAt, responseCode: a.responseCode, adviceCode: a.adviceCode, approved: a.status === 'approved' };
}

export interface Histories {
  attempts: AttemptRecord[];
  cardAttempts: AttemptRecord[];
}
