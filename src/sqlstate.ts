// Which database failures pass by themselves. A file whose ingest failed on a lost
// connection is tried again; one the database refused (a value it cannot store, a broken
// constraint) fails the same way every time, so it is set aside at once.
// Plain functions of an error, importing nothing: on the base floor (.config/layers.mjs), so
// the logger names a failed statement's SQLSTATE without loading the database.

/** The SQLSTATE of a failed query (drizzle wraps the driver's error in `cause`). */
export function sqlState(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    // Every SQLSTATE has a digit; errno names of five letters (EPIPE, EBUSY) do not.
    if (typeof code === 'string' && /^(?=.*\d)[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * SQLSTATE classes and codes that describe the moment, not the data: connection exceptions
 * (08), insufficient resources (53), operator intervention such as a restart (57P01–57P03),
 * serialization failures and deadlocks (40001, 40P01), a lock not available (55P03) and
 * system errors (58).
 */
const TRANSIENT_STATE = /^(08|53|58)|^(57P0[1-3]|40001|40P01|55P03)$/;

export type FailureKind = 'transient' | 'refused';

/**
 * `refused`: the database answered with an error that will recur (a SQLSTATE outside the
 * transient set). Everything else is `transient`: a lost connection (postgres.js
 * CONNECTION_CLOSED, ECONNRESET, …: no SQLSTATE) or an unknown error; whoever retries it
 * bounds the tries.
 */
export function failureKind(err: unknown): FailureKind {
  const state = sqlState(err);
  if (state) return TRANSIENT_STATE.test(state) ? 'transient' : 'refused';
  return 'transient';
}

