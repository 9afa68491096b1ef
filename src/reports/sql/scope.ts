// The filter every report query shares: one merchant or all, and a start time. Conditions are
// added to the statement only when given, so each combination is its own statement text and
// PostgreSQL plans it for what it is (an `$1 is null or …` disjunction would defeat the
// merchant indexes once a prepared statement switches to its generic plan).
import { sql, type SQL } from 'drizzle-orm';

export interface ReportScope {
  /** merchants.id (not the mid); undefined: every merchant. */
  merchantId?: string | undefined;
  /** Orders created, and attempts started, from then on; undefined: all time. */
  since?: Date | undefined;
  now: Date;
}

/** `and`-joined conditions on `<alias>.merchant_id` and, with `timeColumn`, `<alias>.<timeColumn> >= since`. */
export function scopeWhere(alias: string, scope: ReportScope, timeColumn?: string, extra: SQL[] = []): SQL {
  const parts: SQL[] = [...extra];
  if (scope.merchantId) parts.push(sql`${sql.raw(alias)}.merchant_id = ${scope.merchantId}::uuid`);
  if (timeColumn && scope.since) parts.push(sql`${sql.raw(`${alias}.${timeColumn}`)} >= ${scope.since.toISOString()}::timestamptz`);
  return parts.length ? sql.join(parts, sql` and `) : sql`true`;
}

/** A count or sum from a raw row: postgres-js answers bigint as a string, PGlite as a number. */
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** A timestamp from a raw row as ISO text, or null. */
export const isoOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : (v instanceof Date ? v : new Date(v as string)).toISOString());
