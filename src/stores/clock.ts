/**
 * The wall clock read once per task: the first read in a macrotask reads `Date.now()`, every later read
 * in the same task (the synchronous run of a request's resolvers, its microtasks) gets that reading,
 * and an immediate clears it when the task ends. A page resolves dozens of tokens, each lookup reading
 * the clock two or three times; on this machine a `Date.now()` costs about what the lookup itself does
 * (bench/PHASES.md, branch `stores`). The reading lags by the task's duration at most, milliseconds
 * against the stores' TTLs of seconds.
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
