// A cron schedule whose runs never overlap: a tick that comes while the last run is still
// going is skipped, and said so in the JSON log at debug level. node-cron can skip such ticks
// itself (its noOverlap option), but then prints a raw, coloured line to the process's stderr
// on every skipped tick — during a database outage, once a second beside the JSON log an
// operator reads and parses (seen in the fault campaign's pg-unreachable trials).
import cron from 'node-cron';
import type { Logger } from './log.ts';

export interface Schedule {
  /** Stops the ticks, then waits for a run still in progress. */
  stop(): Promise<void>;
}

/** `setting` names the configuration key the expression came from, for the error when it is not valid. */
export function scheduleExclusive(expression: string, o: { name: string; setting: string }, run: () => Promise<unknown>, log: Logger): Schedule {
  if (!cron.validate(expression)) throw new Error(`${o.setting} is not a valid cron expression: ${expression}`);
  const { name } = o;
  let current: Promise<unknown> | null = null;
  const task = cron.schedule(
    expression,
    () => {
      if (current) {
        log.debug({ schedule: name }, 'tick skipped: the last run is still going');
        return;
      }
      current = run().finally(() => (current = null));
    },
    { name },
  );
  return {
    async stop() {
      await task.destroy();
      await current;
    },
  };
}
