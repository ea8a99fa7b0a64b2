import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { decodeCursor, encodeCursor } from '../../src/schema/common/cursor.js';
import { CURSOR_KEY_REDIS_KEY, shareCursorKey, type CursorKeyShare } from '../../src/stores/cursor-keys.js';
import { CursorSigner, cursorKeys } from '../../src/stores/cursor-signer.js';
import { freePort, needsRedis, startRedis, stopProcess } from '../helpers/processes.js';

/** The key kept in Redis for replicas in production with no secret, as two replicas' signers see it. */
const runs = needsRedis('test/common/cursor-key-share.test.ts');
const logger = createLogger({ logLevel: 'silent' });
const accept = (payload: unknown) => payload;
const invalid = { field: 'after', message: 'not ours' };

describe.runIf(runs)('a cursor key kept in Redis', () => {
  let server: ChildProcess | undefined;
  let port: number;
  const clients: Redis[] = [];
  const shares: CursorKeyShare[] = [];
  beforeAll(async () => {
    port = await freePort();
    server = await startRedis(port);
  });
  afterEach(() => {
    shares.splice(0).forEach((share) => share.stop());
    clients.splice(0).forEach((client) => client.disconnect());
  });
  afterAll(() => stopProcess(server));

  /** A replica's signer, sharing its key through Redis (`checkEveryMs` short, so a lost key is noticed in the test). */
  function replica() {
    const keys = cursorKeys(loadConfig({ NODE_ENV: 'production', ALERTS_URL: 'http://a:1', MARKETS_URL: 'http://m:1', ASSETS_URL: 'http://s:1', REDIS_URL: `redis://127.0.0.1:${port}` }));
    expect(keys.source).toBe('redis');
    const redis = new Redis(`redis://127.0.0.1:${port}`, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    clients.push(redis);
    const signer = new CursorSigner(keys);
    const share = shareCursorKey({ redis, signer, keys, logger, checkEveryMs: 50, retryMs: 50 });
    shares.push(share);
    return { signer, share, redis };
  }

  it('gives every replica the key the first one stored, and puts it back when Redis lost it', async () => {
    const a = replica();
    const b = replica();
    await Promise.all([a.share.ready, b.share.ready]);
    const stored = await a.redis.get(CURSOR_KEY_REDIS_KEY);
    expect(stored).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cursor = encodeCursor(a.signer, { o: 1 });
    expect(decodeCursor(b.signer, cursor, accept, invalid)).toEqual({ o: 1 });

    await a.redis.flushall();
    await expect.poll(() => a.redis.get(CURSOR_KEY_REDIS_KEY)).toBe(stored);
    // A replica started after the loss reads the key put back: the cursors issued before still page on it.
    const c = replica();
    await c.share.ready;
    expect(decodeCursor(c.signer, cursor, accept, invalid)).toEqual({ o: 1 });
  });

  it('is not ready while Redis is away, and ready with the stored key once it is back', async () => {
    await stopProcess(server);
    const a = replica();
    let ready = false;
    void a.share.ready.then(() => (ready = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ready).toBe(false);
    server = await startRedis(port);
    await a.share.ready;
    const stored = await a.redis.get(CURSOR_KEY_REDIS_KEY);
    const b = replica();
    await b.share.ready;
    expect(await b.redis.get(CURSOR_KEY_REDIS_KEY)).toBe(stored);
    expect(decodeCursor(b.signer, encodeCursor(a.signer, { o: 2 }), accept, invalid)).toEqual({ o: 2 });
  });
});
