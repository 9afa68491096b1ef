// Recent failures per key in a sliding window, in bounded memory: the shared count behind
// the SFTP login throttle, the console's sign-in and the HTTP authentication throttle. A key
// keeps at most `keep` timestamps (the limit it is checked against). Memory is bounded twice:
// past `maxKeys` keys the least recently failed key is forgotten, so an attacker rotating
// addresses or ids cannot grow it past the cap; and every record first drops the keys whose
// last failure has left the window, so once an attack stops the memory is given back within
// one window instead of staying at the cap.
export interface FailureWindow {
  /** Failures of `key` within the window, oldest first. */
  recent(key: string): readonly number[];
  record(key: string): void;
  /** Keys remembered now (at most maxKeys). */
  size(): number;
}

export function createFailureWindow(opts: { windowMs: number; keep: number; maxKeys: number; now?: () => number }): FailureWindow {
  const now = opts.now ?? Date.now;
  // Map iteration order is insertion order, and record() re-inserts a key: the first key is
  // always the least recently failed one, which both the expiry and the cap rely on.
  const failures = new Map<string, number[]>();
  const recent = (key: string): number[] => {
    const list = failures.get(key);
    if (!list) return [];
    const since = now() - opts.windowMs;
    while (list.length && list[0]! <= since) list.shift();
    if (!list.length) failures.delete(key);
    return list;
  };
  /** Forgets the keys whose newest failure is out of the window: O(1) for each key ever added. */
  const expire = () => {
    const since = now() - opts.windowMs;
    for (const [key, list] of failures) {
      if (list.length && list[list.length - 1]! > since) break;
      failures.delete(key);
    }
  };
  return {
    recent,
    record(key) {
      expire();
      const list = recent(key);
      list.push(now());
      if (list.length > opts.keep) list.shift();
      failures.delete(key);
      failures.set(key, list);
      if (failures.size > opts.maxKeys) failures.delete(failures.keys().next().value!);
    },
    size: () => failures.size,
  };
}
