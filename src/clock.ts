// Time as a dependency: the engine, the sandbox processor, the sweeps and the dispatcher ask a
// Clock instead of calling Date.now(), so tests can run a month of retries in seconds.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to (tests, simulations). */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | number) {
    this.#ms = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  set(to: Date | number): void {
    this.#ms = typeof to === 'number' ? to : to.getTime();
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}
