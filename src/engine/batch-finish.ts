// The results file as soon as a batch's last order is final, not at the next sweep (every 15 s
// by default; a merchant waits for that file). The engine touches the finisher whenever an
// attempt of a batch's order has reached an answer; the finisher then runs the batch sweep
// (finishBatchesNow: the same advisory lock, query and file writer as the periodic sweep) at
// once, and while touches keep coming, at most once per `minIntervalMs`, so a busy engine pays
// one short query a second for it. Several replicas: when another instance holds the batch
// sweep's lock, its query may have started before this instance's last order was committed
// and missed that batch, so the finisher looks again after the interval instead of assuming
// the other one saw it.
import type { Logger } from '../log.ts';

export interface BatchFinisher {
  /** A batch's order may have become final: look for finished batches soon. */
  touch(): void;
  /** No more looks; waits for one under way. */
  stop(): Promise<void>;
}

/** `finish` resolves with the batches finished, or undefined when the sweep's lock is held elsewhere. */
export function createBatchFinisher(o: { finish: () => Promise<number | undefined>; log: Logger; minIntervalMs: number }): BatchFinisher {
  let wanted = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let lastStartMs = -Infinity;

  function schedule(): void {
    if (stopped || timer || running) return;
    timer = setTimeout(look, Math.max(0, lastStartMs + o.minIntervalMs - Date.now()));
    timer.unref();
  }

  function look(): void {
    timer = undefined;
    if (stopped) return;
    wanted = false;
    lastStartMs = Date.now();
    running = o
      .finish()
      .then(
        (finished) => {
          if (finished === undefined) wanted = true;
        },
        // The periodic sweep still finishes the batch; no retry loop against a failing database.
        (err: unknown) => o.log.warn({ err }, 'finishing batches after their last order failed; the next sweep tries again'),
      )
      .finally(() => {
        running = undefined;
        if (wanted) schedule();
      });
  }

  return {
    touch() {
      wanted = true;
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
