// The learned table's counts, off the attempt path: the recorder hands each group's outcomes
// to this counter (no statement, no await), which sums them per cell in memory and adds them
// in one statement at most every second, after runOnce, and at stop. Counts are statistics:
// a crash loses at most the last second's, which the estimate does not notice, and a failed
// write is logged and dropped rather than held (memory stays bounded by the cells touched).
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/client.ts';
import { addOutcomes, type OutcomeRow } from '../../db/queries/learned-timing.ts';
import type { Logger } from '../../log.ts';

export interface OutcomeCounter {
  add(rows: readonly OutcomeRow[]): void;
  /** Writes what was added so far; resolves when it is stored (or its failure logged). */
  flush(): Promise<void>;
}

const keyOf = (o: OutcomeRow) => `${o.merchantId}|${o.family}|${o.brand}|${o.bin}|${o.weekday}|${o.localHour}|${o.dayBucket}`;

export function outcomeCounter(db: Db, clock: Clock, log: Logger): OutcomeCounter {
  let pending = new Map<string, OutcomeRow>();
  let chain: Promise<void> = Promise.resolve();

  async function write(rows: OutcomeRow[]): Promise<void> {
    try {
      await addOutcomes(db, rows, clock.now());
    } catch (err) {
      log.warn({ err, cells: rows.length }, 'learned timing: outcomes not counted');
    }
  }

  return {
    add(rows) {
      for (const r of rows) {
        const key = keyOf(r);
        const hit = pending.get(key);
        if (hit) {
          hit.attempts += r.attempts;
          hit.approvals += r.approvals;
        } else pending.set(key, { ...r });
      }
    },
    flush() {
      // One write at a time, in order: each takes what was added before it started.
      chain = chain.then(() => {
        if (pending.size === 0) return;
        const rows = [...pending.values()];
        pending = new Map();
        return write(rows);
      });
      return chain;
    },
  };
}
