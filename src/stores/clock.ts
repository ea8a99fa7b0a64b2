/**
 * The wall clock read once per turn of the event loop: the first read reads `Date.now()` and queues an
 * immediate that clears it, so every later read until the loop's next check phase (the rest of this
 * callback and its microtasks, and any other timer or I/O callback of the same turn, another request's
 * say) gets that reading. A page resolves dozens of tokens, each lookup reading the clock two or three
 * times; on this machine a `Date.now()` costs about what the lookup itself does (bench/PHASES.md, branch
 * `stores`). The reading lags by one turn of the loop at most, milliseconds against the stores' TTLs of
 * seconds.
 */
let reading = 0;
const forget = (): void => {
  reading = 0;
};

export function taskNow(): number {
  if (reading === 0) {
    reading = Date.now();
    setImmediate(forget);
  }
  return reading;
}
