// db.execute answers an array (postgres-js) or { rows } (PGlite): the rows either way.
import { sql } from 'drizzle-orm';

export type RawRow = Record<string, unknown>;

export function rowsOf(result: unknown): RawRow[] {
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as RawRow[];
}

/** A timestamp column of a raw row: a Date from postgres-js, an ISO string from some paths. */
export function dateOf(v: unknown): Date {
  return v instanceof Date ? v : new Date(v as string);
}

/** A list of uuids for `in`, as one JSON parameter: any length, one prepared statement. */
export const uuidList = (list: string[]) => sql`(select x::uuid from json_array_elements_text(${JSON.stringify(list)}::json) as x)`;
