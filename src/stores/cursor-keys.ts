import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { deriveCursorKey, type CursorKeys, type CursorKeySource, type CursorSigner } from './cursor-signer.js';

/** Where the generated key lives: one value for the whole deployment, written once (SET NX), read by every replica. */
export const CURSOR_KEY_REDIS_KEY = 'gateway:cursor-key';

export interface CursorKeyShareOptions {
  redis: Redis;
  signer: CursorSigner;
  /** The keys of the configuration (`cursorKeys`) and where they came from. */
  keys: CursorKeys & { source: CursorKeySource };
  logger: Logger;
  /** How often a replica checks the stored key is still there (a Redis emptied or replaced loses it). Default 60 s. */
  checkEveryMs?: number;
  /** Pause between attempts while Redis is away. Default 1 s. */
  retryMs?: number;
}

export interface CursorKeyShare {
  /** Settles once the signer holds the deployment's key (source `redis`), or at once for any other source. */
  ready: Promise<void>;
  stop(): void;
}

/**
 * Production without a secret but with `REDIS_URL`: the first replica generates a key and stores it
 * (SET NX), every replica reads the one stored, so page 2 may be asked of any replica. While Redis is
 * away at boot the replica waits (it is not ready, and signs nothing others could not read). Once
 * running, it puts its key back if Redis lost it; if another key took its place, that key signs and its
 * own is still accepted. With a secret configured, a key found in Redis is accepted as a previous one,
 * so moving from the generated key to `CURSOR_SECRET` keeps the cursors clients hold valid.
 */
export function shareCursorKey(options: CursorKeyShareOptions): CursorKeyShare {
  const { redis, signer, keys, logger } = options;
  const retryMs = options.retryMs ?? 1000;
  const stopped = new AbortController();
  let stored: string | null = null;
  const retired: Buffer[] = [];

  const adopt = (value: string) => {
    // A key replaced (Redis emptied, another replica's key stored first) still verifies; the last few only.
    if (stored !== null && retired.push(deriveCursorKey(stored)) > 3) retired.shift();
    stored = value;
    signer.setKeys({ current: deriveCursorKey(value), verifyOnly: [...keys.verifyOnly, ...retired] });
  };

  /** The stored value (ours when none was there); null when Redis does not answer. */
  async function exchange(offer: string): Promise<string | null> {
    try {
      if (redis.status !== 'ready') throw new Error(`Redis connection is ${redis.status}`);
      await redis.set(CURSOR_KEY_REDIS_KEY, offer, 'NX');
      return await redis.get(CURSOR_KEY_REDIS_KEY);
    } catch (err) {
      logger.debug({ err }, 'cursor key: Redis did not answer');
      return null;
    }
  }

  async function keepShared(): Promise<void> {
    const offer = randomBytes(32).toString('base64url');
    let value = await exchange(offer);
    // The connection is usually still being made on the first try: say so only when it lasts.
    for (let attempt = 1; value === null; attempt++) {
      if (attempt === 3) logger.warn('cursor key: waiting for Redis to share the key cursors are signed with (not ready until then)');
      if (!(await pause(Math.min(retryMs, 100 * attempt)))) return;
      value = await exchange(offer);
    }
    adopt(value);
    void (async () => {
      while (await pause(options.checkEveryMs ?? 60_000)) {
        const now = await exchange(stored!);
        if (now !== null && now !== stored) adopt(now);
      }
    })();
  }

  /** Waits `ms`; false once stopped. */
  async function pause(ms: number): Promise<boolean> {
    await sleep(ms, undefined, { signal: stopped.signal, ref: false }).catch(() => undefined);
    return !stopped.signal.aborted;
  }

  async function acceptStored(): Promise<void> {
    while (redis.status !== 'ready') if (!(await pause(retryMs))) return;
    const value = await redis.get(CURSOR_KEY_REDIS_KEY);
    if (value) signer.setKeys({ current: keys.current, verifyOnly: [...keys.verifyOnly, deriveCursorKey(value)] });
  }

  let ready: Promise<void>;
  if (keys.source === 'redis') ready = keepShared();
  else {
    // In the background: nothing waits on a key that only widens what is accepted.
    if (keys.source === 'CURSOR_SECRET' || keys.source === 'WEBHOOK_SECRET') void acceptStored().catch(() => undefined);
    ready = Promise.resolve();
  }
  return {
    ready,
    stop: () => stopped.abort(),
  };
}
