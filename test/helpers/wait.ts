// The one way a test waits for the code under test: a check run until it holds. It runs
// again at once when one of the named events fires (a daemon's output, a server's request),
// and on a short poll otherwise. The bound only matters when the test fails: it is generous,
// so that a loaded machine is slow rather than wrong, and the failure names what was awaited.
//
// A fixed sleep is not a wait: the code may be slower than the sleep (a flaky failure) or a
// late duplicate may come after it (a pass that proves nothing). Tests wait on what the code
// signals — a log line, an event, a row, a file — and count at that moment.
import type { EventEmitter } from 'node:events';

export interface WaitOptions {
  /** What is awaited, as the failure message says it: "the acknowledgement of a.json". */
  what: string;
  /** Default 30 s: only a failing test waits this long. */
  timeoutMs?: number;
  /** Events after which the check runs again at once, e.g. `[[child.stdout, 'data']]`. */
  wakeOn?: ReadonlyArray<readonly [EventEmitter, string]>;
  /** What the failure message adds, read when it fails (the calls seen, a log's tail). */
  detail?: () => string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Between checks when no event wakes them: short beside what any test waits for. */
const POLL_MS = 20;

type Pending = undefined | null | false;

/**
 * Resolves with the first value of `check` that is not undefined, null or false; rejects
 * after `timeoutMs`, or at once when `check` throws (an exited process, a failed expect).
 */
export async function waitFor<T>(check: () => T | Pending | Promise<T | Pending>, opts: WaitOptions): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let woken = false;
  let wake = () => {};
  const onEvent = () => {
    woken = true;
    wake();
  };
  for (const [emitter, event] of opts.wakeOn ?? []) emitter.on(event, onEvent);
  try {
    for (;;) {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${opts.what}${opts.detail ? `\n${opts.detail()}` : ''}`);
      // An event that fired while the check ran is not missed: the check runs again at once.
      if (!woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(POLL_MS, left));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = () => {};
      }
      woken = false;
    }
  } finally {
    for (const [emitter, event] of opts.wakeOn ?? []) emitter.off(event, onEvent);
  }
}
