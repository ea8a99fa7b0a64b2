import { describe, expect, it } from 'vitest';
import { InFlight } from '../src/inflight.js';

/** An answer that records what it was handed, as an upstream call's record does (no promise of its own). */
function recorder() {
  const seen: { value?: unknown; error?: Error; times: number } = { times: 0 };
  return { seen, resolve: (value: unknown) => Object.assign(seen, { value, times: seen.times + 1 }), reject: (error: Error) => Object.assign(seen, { error, times: seen.times + 1 }) };
}

describe('InFlight.open: a flight its caller settles, waits answered through their own answers', () => {
  it('hands the value to every waiter at once when settled, and is no longer listed', () => {
    const flights = new InFlight<string, string, { path: string }>();
    const flight = flights.open('k', { meta: { path: '/a' } });
    const [one, two] = [recorder(), recorder()];
    expect(flights.get('k')).toBe(flight);
    flight.joinWith({}, one);
    flights.get('k')!.joinWith({}, two);
    expect([one.seen.times, two.seen.times]).toEqual([0, 0]);
    flight.resolve('A');
    // Synchronously: the flight's settling reaches the waiters' answers without a turn of promises.
    expect([one.seen, two.seen]).toEqual([{ value: 'A', times: 1 }, { value: 'A', times: 1 }]);
    expect(flights.get('k')).toBeUndefined();
    expect(flights.size).toBe(0);
  });

  it('a waiter that leaves gets its own reason; the last to leave ends the work, once', () => {
    const flights = new InFlight<string, string, undefined>();
    const ended: Error[] = [];
    const flight = flights.open('k', { meta: undefined, abandoned: (reason) => ended.push(reason) });
    const [one, two] = [recorder(), recorder()];
    const first = flight.joinWith({}, one);
    const second = flight.joinWith({}, two);
    first.end(new Error('first left'));
    expect(one.seen.error?.message).toBe('first left');
    expect(ended).toEqual([]);
    second.end(new Error('second left'));
    expect(two.seen.error?.message).toBe('second left');
    expect(ended.map((e) => e.message)).toEqual(['second left']);
    // Abandoned, it is not joined again; settling it later reaches nobody.
    expect(flights.get('k')).toBeUndefined();
    flight.resolve('late');
    expect([one.seen.times, two.seen.times]).toEqual([1, 1]);
  });

  it('a waiter joining a flight already settled is answered at once', () => {
    const flights = new InFlight<string, string, undefined>();
    const flight = flights.open('k', { meta: undefined });
    flight.reject(new Error('upstream down'));
    const late = recorder();
    flight.joinWith({}, late);
    expect(late.seen.error?.message).toBe('upstream down');
  });
});
