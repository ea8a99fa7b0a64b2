import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { ExecutionResult } from 'graphql';
import { createResponseCacheStore, ownerOf, resultBody } from '../../src/response-cache/store.js';

const logger = createLogger({ logLevel: 'silent' });
/** A result whose JSON is about `bytes` long. */
const result = (bytes: number) => ({ data: { blob: 'x'.repeat(bytes - 20) } });
/** The JSON a held result is answered with. */
const answered = (held: unknown) => (held ? resultBody(held) : undefined);

describe('the in-process response cache store', () => {
  const store = () => createResponseCacheStore({ logger, redis: null, maxBytes: 1000, ownerIndexTtlMs: 5000 });

  it('is bounded by the bytes of the JSON it holds, dropping the least recently used', async () => {
    const cache = store();
    await cache.set('public.a', result(400), 60_000);
    await cache.set('public.b', result(400), 60_000);
    expect(answered(await cache.get('public.a'))).toBe(JSON.stringify(result(400)));
    await cache.set('public.c', result(400), 60_000);
    expect(await cache.get('public.b')).toBeUndefined();
    expect(await cache.get('public.a')).toBeDefined();
    expect(await cache.get('public.c')).toBeDefined();

    // Larger than the whole bound: not kept.
    await cache.set('public.big', result(2000), 60_000);
    expect(await cache.get('public.big')).toBeUndefined();
    expect(await cache.get('public.a')).toBeDefined();
  });

  it('drops one owner’s results and no one else’s', async () => {
    const cache = store();
    await cache.set('me.q1', result(50), 60_000);
    await cache.set('me.q2', result(50), 60_000);
    await cache.set('you.q1', result(50), 60_000);
    await cache.set('public.q1', result(50), 60_000);
    await cache.invalidateOwner('me');
    expect(await cache.get('me.q1')).toBeUndefined();
    expect(await cache.get('me.q2')).toBeUndefined();
    expect(answered(await cache.get('you.q1'))).toBe(JSON.stringify(result(50)));
    expect(answered(await cache.get('public.q1'))).toBe(JSON.stringify(result(50)));
  });

  it('holds the answer and its HTTP metadata, not the executed object graph', async () => {
    const cache = store();
    const executed = { data: { a: [1, 2, 3] }, extensions: { http: { headers: { ETag: 'k' } } } };
    await cache.set('public.k', executed, 60_000);
    const held = (await cache.get('public.k')) as ExecutionResult;
    expect(held).not.toBe(executed);
    expect(held.data).toBeUndefined();
    expect(held.extensions).toEqual({ http: { headers: { ETag: 'k' } } });
    expect(resultBody(held)).toBe('{"data":{"a":[1,2,3]}}');
  });

  it('reads the owner from the key', () => {
    expect(ownerOf('public.abc')).toBe('public');
    expect(ownerOf('f00d.abc')).toBe('f00d');
  });
});

describe('the Redis response cache store while Redis fails', () => {
  it('stops asking Redis after 3 failures in a row: later reads are misses at once', async () => {
    let calls = 0;
    // A Redis that answers nothing until each command's timeout.
    const silent = {
      get: () => (calls++, new Promise((_, reject) => setTimeout(() => reject(new Error('Command timed out')), 50))),
    } as unknown as Redis;
    const cache = createResponseCacheStore({ logger, redis: silent, maxBytes: 1000, ownerIndexTtlMs: 5000 });
    for (let i = 0; i < 3; i++) expect(await cache.get(`public.${i}`)).toBeUndefined();
    for (let i = 0; i < 20; i++) expect(await cache.get(`public.later-${i}`)).toBeUndefined();
    // Redis was not asked again: none of the later reads waited for a command's timeout.
    expect(calls).toBe(3);
  });
});
