// The tests' one wait (test/helpers/wait.ts): it answers with the check's first value, wakes on
// the events it is given, stops at once on a check that throws, and names what it waited for.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait.ts';

describe('waitFor', () => {
  it('resolves with the first value that is not undefined, null or false, sync or async', async () => {
    let n = 0;
    expect(await waitFor(() => (++n >= 3 ? `after ${n}` : undefined), { what: 'three checks' })).toBe('after 3');
    let m = 0;
    expect(await waitFor(async () => (++m >= 2 ? 0 : null), { what: 'two checks' })).toBe(0);
  });

  it('checks again as soon as a named event fires, not at the next poll', async () => {
    const emitter = new EventEmitter();
    let ready = false;
    let checks = 0;
    const waiting = waitFor(() => (checks++, ready), { what: 'the event', timeoutMs: 5_000, wakeOn: [[emitter, 'data']] });
    // The first check has run (synchronously, before waitFor's first await): the next is the event's.
    expect(checks).toBe(1);
    ready = true;
    emitter.emit('data');
    await waiting;
    expect(checks).toBe(2);
    expect(emitter.listenerCount('data')).toBe(0);
  });

  it('rejects after the bound, naming what it waited for and the detail', async () => {
    await expect(waitFor(() => false, { what: 'the unreachable', timeoutMs: 50, detail: () => 'state: none' }))
      .rejects.toThrow(/^timed out after 50 ms waiting for the unreachable\nstate: none$/);
  });

  it('rejects at once with the error of a check that throws', async () => {
    await expect(waitFor(() => {
      throw new Error('the daemon exited');
    }, { what: 'never', timeoutMs: 60_000 })).rejects.toThrow('the daemon exited');
  });
});
