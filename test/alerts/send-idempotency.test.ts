import { describe, expect, it } from 'vitest';
import { createIdempotencyStore, IDEMPOTENCY_TTL_MS, type IdempotencyStoreOptions } from '../../src/stores/idempotency.js';

function store(options: IdempotencyStoreOptions = {}) {
  return createIdempotencyStore(options);
}

/** A call that counts how often it ran. */
function counted<T>(value: T) {
  const call = () => {
    call.runs++;
    return Promise.resolve(value);
  };
  call.runs = 0;
  return call;
}

const scope = (over: Partial<{ apiKey: string; idempotencyKey: string; fingerprint: string }> = {}) => ({
  apiKey: 'sak_a',
  idempotencyKey: 'k',
  fingerprint: 'f1',
  ...over,
});

describe('idempotency store', () => {
  it('runs a key once and answers repeats with the first result', async () => {
    const s = store();
    const call = counted({ recipientCount: 3 });
    expect(await s.run(scope(), call)).toEqual({ status: 'done', value: { recipientCount: 3 }, replayed: false });
    expect(await s.run(scope(), call)).toEqual({ status: 'done', value: { recipientCount: 3 }, replayed: true });
    expect(call.runs).toBe(1);
  });

  it('answers a conflict for the same key with another fingerprint, and runs nothing', async () => {
    const s = store();
    const call = counted(1);
    await s.run(scope(), call);
    expect(await s.run(scope({ fingerprint: 'f2' }), call)).toEqual({ status: 'conflict' });
    expect(call.runs).toBe(1);
  });

  it('keeps keys per API key', async () => {
    const s = store();
    const call = counted(1);
    await s.run(scope({ apiKey: 'sak_a' }), call);
    expect(await s.run(scope({ apiKey: 'sak_b', fingerprint: 'other' }), call)).toMatchObject({ status: 'done', replayed: false });
    expect(call.runs).toBe(2);
  });

  it('makes a concurrent repeat wait for the first call instead of calling again', async () => {
    const s = store();
    let release!: (value: string) => void;
    let runs = 0;
    const call = () => {
      runs++;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const first = s.run(scope(), call);
    const second = s.run(scope(), call);
    release('sent');
    expect(await Promise.all([first, second])).toEqual([
      { status: 'done', value: 'sent', replayed: false },
      { status: 'done', value: 'sent', replayed: true },
    ]);
    expect(runs).toBe(1);
  });

  it('forgets a key whose call failed', async () => {
    const s = store();
    await expect(s.run(scope(), () => Promise.reject(new Error('503')))).rejects.toThrow('503');
    const call = counted('ok');
    expect(await s.run(scope({ fingerprint: 'f2' }), call)).toMatchObject({ status: 'done', value: 'ok', replayed: false });
    expect(call.runs).toBe(1);
  });

  it('remembers a key for 24 hours', async () => {
    let now = 1_000_000;
    const s = store({ now: () => now });
    const call = counted('ok');
    await s.run(scope(), call);
    now += IDEMPOTENCY_TTL_MS - 1_000;
    expect(await s.run(scope({ fingerprint: 'f2' }), call)).toEqual({ status: 'conflict' });
    now += 2_000;
    expect(await s.run(scope({ fingerprint: 'f2' }), call)).toMatchObject({ status: 'done', replayed: false });
    expect(call.runs).toBe(2);
  });

  it('holds a bounded number of keys, dropping the least recently used', async () => {
    const s = store({ maxEntries: 2 });
    const call = counted('ok');
    for (const key of ['a', 'b', 'c']) await s.run(scope({ idempotencyKey: key }), call);
    await s.run(scope({ idempotencyKey: 'c' }), call);
    await s.run(scope({ idempotencyKey: 'b' }), call);
    expect(call.runs).toBe(3);
    await s.run(scope({ idempotencyKey: 'a' }), call);
    expect(call.runs).toBe(4);
  });
});
