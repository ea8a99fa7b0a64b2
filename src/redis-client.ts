import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

const load = createRequire(import.meta.url);

/**
 * A Redis client for `url`. ioredis (and its command table, parser and helpers) is loaded by the first
 * client made, so a gateway without `REDIS_URL` never holds its code in memory (bench/PHASES.md, memory).
 * Loaded synchronously, as the services are built synchronously; only `createServices` and the events'
 * connections call this, and only when `REDIS_URL` is set.
 */
export function redisClient(url: string, options: RedisOptions): Redis {
  const { Redis: Client } = load('ioredis') as typeof import('ioredis');
  return new Client(url, options);
}
