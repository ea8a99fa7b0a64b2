import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERIFY_ATTEMPTS_PER_ADDRESS } from '../../src/plugins/caller-verification.js';
import { freePort, requireBinary, startRedis, stopProcess } from '../helpers/processes.js';
import { bearer, ask, sim, gateway, useRateLimitGateways } from '../helpers/rate-limit.js';

const haveRedis = requireBinary('test/plugins/rate-limit-redis.test.ts', 'redis-server', ['--version'], 'apt-get install redis-server');

useRateLimitGateways();

describe.runIf(haveRedis)('rate limit shared across replicas through Redis', () => {
  let redis: ChildProcess;
  let redisUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    redisUrl = `redis://127.0.0.1:${port}`;
  });
  afterAll(() => stopProcess(redis));

  it('counts one caller on both replicas together', async () => {
    const a = await gateway({ config: { rateLimitPerMinute: 4, redisUrl } });
    const b = await gateway({ config: { rateLimitPerMinute: 4, redisUrl } });
    for (const gw of [a, b, a, b]) expect((await ask(gw, bearer('carol'), '192.0.2.40')).status).toBe(200);
    expect(await ask(a, bearer('carol'), '192.0.2.40')).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    expect(await ask(b, {}, '192.0.2.40')).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    expect((await ask(b, bearer('dave'), '192.0.2.41')).status).toBe(200);
  });

  it("bounds one address's verification attempts on both replicas together", async () => {
    const config = { rateLimitPerMinute: 1000, authIdentityTtlMs: 60_000, redisUrl };
    const [a, b] = [await gateway({ config }), await gateway({ config })];
    sim.controls.resetCounts();
    for (let i = 0; i < 2 * VERIFY_ATTEMPTS_PER_ADDRESS; i++) await ask(i % 2 ? b : a, bearer(`forged-${i}`), '100.64.0.9');
    expect(sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': VERIFY_ATTEMPTS_PER_ADDRESS });
  });

  it('keeps limiting in process while Redis is away', async () => {
    const unreachable = `redis://127.0.0.1:${await freePort()}`;
    const gw = await gateway({ config: { rateLimitPerMinute: 2, redisUrl: unreachable } });
    expect((await ask(gw, bearer('erin'))).status).toBe(200);
    expect((await ask(gw, bearer('erin'))).status).toBe(200);
    expect((await ask(gw, bearer('erin'))).status).toBe(429);
  });
});
