import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { InFlight } from '../src/inflight.js';

// V8's collector on demand, full or a scavenge alone: what the test is about is what a scavenge keeps.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;

const turn = () => new Promise((resolve) => setImmediate(resolve));

const REQUESTS = 2_000;
const IN_FLIGHT = 50;
/** What a request's state holds: 2,000 of them are about 8 MiB. */
const HELD_NUMBERS = 512;

const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;

/**
 * Requests through a listing that lives long (the collapse's, a store's), `IN_FLIGHT` at a time, as a
 * busy gateway runs them, then scavenges only: the bytes they took to the old space, where only a full
 * collection frees them. A request's state promoted after it ended is what made scavenges costly.
 */
async function promotedByScavenges(run: (flights: InFlight<string, string, undefined, object>, key: string, owner: object) => () => void): Promise<number> {
  const flights = new InFlight<string, string, undefined, object>(undefined, { signal: () => undefined, deadlineAt: () => undefined });
  // The listing and its table in the old space, as a gateway's are once it has served for a while.
  gc({ type: 'major' });
  gc({ type: 'major' });
  const before = oldSpaceUsed();
  const running: (() => void)[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    // A request's state: its context, and what it holds while it runs.
    const owner = { held: new Array<number>(HELD_NUMBERS).fill(i) };
    running.push(run(flights, `caller-${i}`, owner));
    if (running.length <= IN_FLIGHT) continue;
    running.shift()!();
    // A settled flight is unlisted in a microtask of its own, as the gateway's are between requests.
    await Promise.resolve();
  }
  for (const end of running.splice(0)) end();
  await turn();
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  await turn();
  return oldSpaceUsed() - before;
}

describe('InFlight: what a settled flight leaves for scavenges', () => {
  it('an owner that led its work is let go by the listing once settled: scavenges free it, whatever the listing outgrew', async () => {
    const promoted = await promotedByScavenges((flights, key, owner) => {
      flights.lead(key, owner);
      return () => flights.resolve(key, owner, 'answer');
    });
    // The requests' state is about 8 MiB: only what a scavenge found running may have gone to the old space.
    expect(promoted).toBeLessThan(1024 * 1024);
  });

  it("a started flight's value is let go by the listing once settled", async () => {
    const promoted = await promotedByScavenges((flights, key, owner) => {
      let settle!: (value: string) => void;
      const flight = flights.start(key, () => new Promise<string>((resolve) => (settle = resolve)), { meta: undefined });
      // The value holds the request's state, as a read's parsed answer does.
      const value = { owner };
      return () => {
        settle(value as unknown as string);
        void flight.result;
      };
    });
    expect(promoted).toBeLessThan(1024 * 1024);
  });
});
