/** The wall clock of this process, stopped at a time a test chooses (see `freezeTime`). */
export interface FrozenTime {
  /** Moves the clock on by `ms` (it moves in no other way). */
  advance(ms: number): void;
  /** The real `Date` again. */
  restore(): void;
}

/**
 * Stops the wall clock: until `restore()`, `Date.now()` and `new Date()` (no
 * argument) give `start`, moved on only by `advance`. The rest of `Date` is the
 * real one (`new Date(x)`, `Date.parse`, `instanceof Date`), and timers and
 * `performance.now()` run in real time, so a whole Chronicle runs as usual in
 * this process: what it records and shows (times of events, keys, sessions,
 * the usage of an hour) is then the same on every run. A worker thread has a
 * `Date` of its own: start what must show these times without threads.
 */
export const freezeTime = (start: Date): FrozenTime => {
  const RealDate = globalThis.Date;
  let now = start.getTime();
  globalThis.Date = new Proxy(RealDate, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now] : args, newTarget) as object,
    apply: () => new RealDate(now).toString(),
    get: (target, property, receiver) => (property === 'now' ? () => now : Reflect.get(target, property, receiver)),
  });
  return {
    advance: (ms) => {
      now += ms;
    },
    restore: () => {
      globalThis.Date = RealDate;
    },
  };
};
