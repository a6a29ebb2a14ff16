/**
 * A preload (`node --import dist/bench/fixed-clock.js`, or the same in NODE_OPTIONS) that stops
 * the wall clock at OBS_FIXED_NOW_MS: `Date.now()` and `new Date()` with no argument return that
 * instant. Node runs `--import` preloads in every worker thread too, so obsd's query, decode and
 * writer threads (retention) see the same instant as its main thread. bench/query-answers.ts
 * uses it so that every lookback window, cursor and `generated_at` is the same from run to run.
 * Timers are untouched: they run on the monotonic clock.
 */
const raw = process.env.OBS_FIXED_NOW_MS;
const fixedMs = Number(raw);
if (raw === undefined || !Number.isSafeInteger(fixedMs)) {
  throw new Error(`fixed-clock: OBS_FIXED_NOW_MS must be an integer of milliseconds, got ${raw}`);
}

const RealDate = Date;
RealDate.now = () => fixedMs;
// A proxy, not a subclass: `instanceof Date` still holds for dates made before or elsewhere.
globalThis.Date = new Proxy(RealDate, {
  construct(target, args: unknown[], newTarget) {
    return Reflect.construct(target, args.length === 0 ? [fixedMs] : args, newTarget) as object;
  },
  apply() {
    // `Date()` called as a function returns the current time as a string.
    return new RealDate(fixedMs).toString();
  },
});
