// postgres-js sends a query with parameters that is not a prepared statement in two round
// trips: Parse + Describe, wait for the parameter types, then Bind + Execute. drizzle marks
// only named queries as prepared, so every ordinary statement paid both trips — measured on
// CIT evaluate: 31% of the server's CPU in socket writes, most of them these describes. This
// wrapper asks postgres-js to prepare (and cache, per connection) every statement with at most
// MAX_PREPARED_PARAMS parameters: after the first use, one round trip. Longer parameter lists
// (IN lists, multi-row inserts) change shape with their length, and stay unprepared so the
// per-connection statement cache cannot grow without bound.
import type { Sql } from 'postgres';

const MAX_PREPARED_PARAMS = 64;

let sent = 0;

/**
 * Statements sent through preparingClient since the process started, a transaction's BEGIN
 * and COMMIT counted as two: the round trips the benches report per request. Statements the
 * driver sends by other ways (COPY, tagged templates) are not counted.
 */
export function statementsSent(): number {
  return sent;
}

type Unsafe = (query: string, args?: unknown[], options?: Record<string, unknown>) => unknown;

/** The same client, with `unsafe` preparing small statements, in transactions and savepoints too. */
export function preparingClient<T extends Sql>(sql: T): T {
  return new Proxy(sql, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'unsafe') {
        const unsafe = value as Unsafe;
        return (query: string, args: unknown[] = [], options: Record<string, unknown> = {}) => {
          sent++;
          return unsafe.call(target, query, args, args.length > 0 && args.length <= MAX_PREPARED_PARAMS ? { ...options, prepare: true } : options);
        };
      }
      if (prop === 'begin' || prop === 'savepoint') {
        const open = value as (...a: unknown[]) => unknown;
        return (...a: unknown[]) => {
          sent += 2;
          const fn = a.pop() as (tx: Sql) => unknown;
          return open.call(target, ...a, (tx: Sql) => fn(preparingClient(tx)));
        };
      }
      return value;
    },
  });
}
