// Recent failures per key in a sliding window, in bounded memory: the shared count behind
// the SFTP login throttle and the HTTP authentication throttle. A key keeps at most `keep`
// timestamps (the limit it is checked against); past `maxKeys` keys, the least recently
// failed key is forgotten, so an attacker rotating addresses or ids cannot grow memory.
export interface FailureWindow {
  /** Failures of `key` within the window, oldest first. */
  recent(key: string): readonly number[];
  record(key: string): void;
}

export function createFailureWindow(opts: { windowMs: number; keep: number; maxKeys: number; now?: () => number }): FailureWindow {
  const now = opts.now ?? Date.now;
  const failures = new Map<string, number[]>();
  const recent = (key: string): number[] => {
    const list = failures.get(key);
    if (!list) return [];
    const since = now() - opts.windowMs;
    while (list.length && list[0]! <= since) list.shift();
    if (!list.length) failures.delete(key);
    return list;
  };
  return {
    recent,
    record(key) {
      const list = recent(key);
      list.push(now());
      if (list.length > opts.keep) list.shift();
      // Map iteration order is insertion order: re-inserting makes the first key the least recently failed.
      failures.delete(key);
      failures.set(key, list);
      if (failures.size > opts.maxKeys) failures.delete(failures.keys().next().value!);
    },
  };
}
