// The opaque cursor of a listing (orders, batches): the key of the last row of a page, as
// base64url JSON. Opaque to clients, not secret: every listing is confined to the caller's
// own rows by its query, so a cursor made by hand can only move within them. It is still
// client input — one that does not decode to a key of the listing is ERR_API_BAD_CURSOR.
import { RescuedError } from '../errors.ts';

export function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** `check` answers the key, or undefined when the value is not one of this listing. */
export function decodeCursor<K>(cursor: string, check: (value: unknown) => K | undefined): K {
  let value: unknown;
  try {
    value = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    value = undefined;
  }
  const key = typeof value === 'object' && value !== null ? check(value) : undefined;
  if (key === undefined) {
    throw new RescuedError('ERR_API_BAD_CURSOR', undefined, [{ field: 'cursor', code: 'ERR_API_BAD_CURSOR', message: 'cursor must be the nextCursor of a previous page of this listing.' }]);
  }
  return key;
}
