import { describe, expect, it } from 'vitest';
import { InFlight, NotShared, type Caller } from '../src/inflight.js';

/** A caller's wait on the flight listed under `key`, started by `work` when there is none: what the gateway's sharing sites do. */
const share = <K, T>(flights: InFlight<K, T, undefined>, key: K, work: () => Promise<T>, caller: Caller = {}): Promise<T> =>
  (flights.get(key) ?? flights.start(key, work, { meta: undefined })).join(caller).answer;

/** Work whose outcome the test decides, counting how often it was started. */
function controlled<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  let starts = 0;
  const work = () => {
    starts++;
    return new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
  };
  return { work, resolve: (v: T) => resolve(v), reject: (e: Error) => reject(e), starts: () => starts };
}

/** Resolves to how a promise settled, so a test can look at it before or after the work ends. */
function outcome<T>(promise: Promise<T>) {
  const seen: { value?: T; error?: unknown; settled: boolean } = { settled: false };
  promise.then(
    (value) => Object.assign(seen, { value, settled: true }),
    (error: unknown) => Object.assign(seen, { error, settled: true }),
  );
  return seen;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('InFlight: one way to share work in flight', () => {
  it('the first caller leads: callers of the same key while it runs share its one work; other keys run their own', async () => {
    const flights = new InFlight<string, string>();
    const a = controlled<string>();
    const b = controlled<string>();
    const answers = [share(flights, 'a', a.work), share(flights, 'a', a.work), share(flights, 'a', a.work), share(flights, 'b', b.work)];
    expect([a.starts(), b.starts()]).toEqual([1, 1]);
    a.resolve('A');
    b.resolve('B');
    expect(await Promise.all(answers)).toEqual(['A', 'A', 'A', 'B']);
  });

  it("a waiter leaves when its own signal aborts, with its own error; the work goes on and answers the others", async () => {
    const flights = new InFlight<string, string>();
    const work = controlled<string>();
    const controller = new AbortController();
    const leaving = outcome(share(flights, 'k', work.work, { signal: controller.signal, aborted: () => new Error('my caller left') }));
    const staying = outcome(share(flights, 'k', work.work));
    controller.abort();
    await turn();
    expect(leaving.error).toEqual(new Error('my caller left'));
    expect(staying.settled).toBe(false);
    work.resolve('answer');
    await turn();
    expect(staying.value).toBe('answer');
    expect(work.starts()).toBe(1);
  });

  it('many waiters on one signal hold one listener on it', async () => {
    const flights = new InFlight<number, number>();
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    }) as typeof add;
    const works = Array.from({ length: 20 }, () => controlled<number>());
    const answers = works.map((w, i) => outcome(share(flights, i, w.work, { signal: controller.signal })));
    expect(listeners).toBe(1);
    controller.abort(new Error('gone'));
    await turn();
    expect(answers.every((a) => (a.error as Error).message === 'gone')).toBe(true);
  });

  it("a waiter leaves at its own deadline, with its own error, while the work answers a waiter with more time", async () => {
    const flights = new InFlight<string, string>();
    const work = controlled<string>();
    const soon = share(flights, 'k', work.work, { deadlineAt: performance.now() + 5, expired: () => new Error('out of time') });
    const later = outcome(share(flights, 'k', work.work, { deadlineAt: performance.now() + 60_000 }));
    await expect(soon).rejects.toEqual(new Error('out of time'));
    expect(later.settled).toBe(false);
    work.resolve('answer');
    await turn();
    expect(later.value).toBe('answer');
    expect(work.starts()).toBe(1);
  });

  it('a waiter whose deadline already passed or whose signal already aborted is answered at once, without waiting', async () => {
    const flights = new InFlight<string, string>();
    const work = controlled<string>();
    const late = outcome(share(flights, 'k', work.work, { deadlineAt: performance.now() - 1, expired: () => new Error('late') }));
    const gone = outcome(share(flights, 'k', work.work, { signal: AbortSignal.abort(new Error('gone')) }));
    await turn();
    expect([late.error, gone.error]).toEqual([new Error('late'), new Error('gone')]);
  });

  it("the work's failure is handed to every waiter, and the next caller starts anew", async () => {
    const flights = new InFlight<string, string>();
    const work = controlled<string>();
    const failure = new Error('upstream down');
    const answers = [outcome(share(flights, 'k', work.work)), outcome(share(flights, 'k', work.work))];
    work.reject(failure);
    await turn();
    expect(answers.map((a) => a.error)).toEqual([failure, failure]);
    expect(flights.size).toBe(0);
    const again = outcome(share(flights, 'k', work.work));
    expect(work.starts()).toBe(2);
    work.resolve('back');
    await turn();
    expect(again.value).toBe('back');
  });

  it('the entry is removed when the work settles: a caller after it starts new work', async () => {
    const flights = new InFlight<string, number>();
    let n = 0;
    expect(await share(flights, 'k', () => Promise.resolve(++n))).toBe(1);
    expect(flights.size).toBe(0);
    expect(flights.get('k')).toBeUndefined();
    expect(await share(flights, 'k', () => Promise.resolve(++n))).toBe(2);
  });

  it("work whose owner's caller left is not shared: it is not joined, and its waiters are told to run their own", async () => {
    const flights = new InFlight<string, string>();
    const owner = new AbortController();
    const work = controlled<string>();
    const flight = flights.start('k', work.work, { owner: { signal: owner.signal }, meta: undefined });
    const waiter = outcome(flight.join().answer);
    owner.abort();
    expect(flights.get('k')).toBeUndefined();
    work.resolve('cut short');
    await turn();
    expect(waiter.error).toBeInstanceOf(NotShared);
    // The owner itself still learns its own outcome.
    expect(await flight.result).toBe('cut short');
  });

  it("an owner's answer within its time is shared with a waiter with more time; one after its time ran out is not", async () => {
    const flights = new InFlight<string, string>();
    const now = performance.now();
    const inTime = controlled<string>();
    const inTimeWaiter = outcome(flights.start('a', inTime.work, { owner: { deadlineAt: now + 60_000 }, meta: undefined }).join({ deadlineAt: now + 120_000 }).answer);
    inTime.resolve('whole');
    const ownerAt = now + 5;
    const late = controlled<string>();
    const lateWaiter = outcome(flights.start('b', late.work, { owner: { deadlineAt: ownerAt }, meta: undefined }).join({ deadlineAt: now + 120_000 }).answer);
    while (performance.now() < ownerAt) await new Promise((resolve) => setTimeout(resolve, 1));
    late.resolve('cut short');
    await turn();
    expect(inTimeWaiter.value).toBe('whole');
    expect(lateWaiter.error).toBeInstanceOf(NotShared);
  });

  it('a value the sharing rule refuses is not shared: each waiter is told to run its own', async () => {
    const flights = new InFlight<string, string>((value) => value !== 'mine alone');
    const work = controlled<string>();
    const flight = flights.start('k', work.work, { meta: undefined });
    const waiter = outcome(flight.join().answer);
    work.resolve('mine alone');
    await turn();
    expect(waiter.error).toBeInstanceOf(NotShared);
  });

  it('work started with `abandoned` ends when its last waiter leaves, and is not joined after', async () => {
    const flights = new InFlight<string, string, null>();
    const ended: Error[] = [];
    const work = controlled<string>();
    const flight = flights.start('k', work.work, { meta: null, abandoned: (reason) => ended.push(reason) });
    const first = flight.join();
    const second = flight.join();
    first.end(new Error('first left'));
    expect(ended).toEqual([]);
    expect(flights.get('k')).toBe(flight);
    second.end(new Error('second left'));
    expect(ended).toEqual([new Error('second left')]);
    expect(flights.get('k')).toBeUndefined();
    await expect(first.answer).rejects.toThrow('first left');
    await expect(second.answer).rejects.toThrow('second left');
  });

  it("a flight lets go of its site's meta once it settles or is abandoned: a stale reference to it holds no call", async () => {
    const flights = new InFlight<string, string, { call: string }>();
    const work = controlled<string>();
    const settled = flights.start('a', work.work, { meta: { call: 'a' } });
    expect(settled.meta).toEqual({ call: 'a' });
    const answer = settled.join().answer;
    work.resolve('done');
    expect(await answer).toBe('done');
    expect(settled.meta).toBeUndefined();

    const ended: Error[] = [];
    const abandoned = flights.start('b', controlled<string>().work, { meta: { call: 'b' }, abandoned: (reason) => ended.push(reason) });
    const waiter = abandoned.join();
    waiter.end(new Error('left'));
    await expect(waiter.answer).rejects.toThrow('left');
    expect(ended).toEqual([new Error('left')]);
    expect(abandoned.meta).toBeUndefined();
  });

  it('work that throws before returning a promise fails its waiters like a rejection', async () => {
    const flights = new InFlight<string, string>();
    await expect(
      share(flights, 'k', () => {
        throw new Error('at once');
      }),
    ).rejects.toThrow('at once');
    expect(flights.size).toBe(0);
  });

  describe('work its owner began and settles (`lead`)', () => {
    type Owner = { signal?: AbortSignal; deadlineAt?: number };
    const owners = { signal: (o: Owner) => o.signal, deadlineAt: (o: Owner) => o.deadlineAt };

    it('is joined while listed, answers its waiters with the value the owner settles, and is unlisted then', async () => {
      const flights = new InFlight<string, string, undefined, Owner>(undefined, owners);
      const owner: Owner = {};
      flights.lead('k', owner);
      expect(flights.size).toBe(1);
      const waiters = [outcome(flights.get('k')!.join().answer), outcome(flights.get('k')!.join().answer)];
      flights.resolve('k', owner, 'answer');
      await turn();
      expect(waiters.map((w) => w.value)).toEqual(['answer', 'answer']);
      expect(flights.size).toBe(0);
      const alone: Owner = {};
      flights.lead('k', alone);
      flights.reject('k', alone, new Error('failed'));
      expect(flights.get('k')).toBeUndefined();
    });

    it("is not joined once its owner's caller left, and its waiters, even under a newer leader, are told to run their own", async () => {
      const flights = new InFlight<string, string, undefined, Owner>(undefined, owners);
      const controller = new AbortController();
      const owner: Owner = { signal: controller.signal };
      flights.lead('k', owner);
      const waiter = outcome(flights.get('k')!.join().answer);
      controller.abort();
      expect(flights.get('k')).toBeUndefined();
      const next: Owner = {};
      flights.lead('k', next);
      flights.resolve('k', owner, 'cut short');
      await turn();
      expect(waiter.error).toBeInstanceOf(NotShared);
      expect(flights.get('k')).toBeDefined();
    });
  });
});
