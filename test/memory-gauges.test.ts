import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerHeldGauges } from '../src/held.js';
import { createLogger } from '../src/logger.js';
import { DELIVERED_BODIES } from '../src/events/seen.js';
import { shareRevocations, UNTOLD_MAX } from '../src/stores/revocations.js';
import { createVerifiedCallers, HASH_ENTRY_BYTES, REFUSED_CALLERS_MAX } from '../src/stores/verified-callers.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { postWebhook, priceChange } from './events/helpers.js';

/** `metric{structure="<structure>"}` as a text exposition shows it, or undefined. */
function sample(exposition: string, metric: string, structure: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${metric}{structure="${structure}"}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('the caches of refused callers, delivered webhooks and untold revocations: bounded in bytes, on /metrics', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ config: { rateLimitPerMinute: 100, authIdentityTtlMs: 60_000, webhookSecret: 'test-webhook-secret' } });
  });
  afterAll(() => gw.close());

  const metrics = async () => (await gw.app.yoga.fetch('http://gateway.test/metrics')).text();
  const forged = (token: string) =>
    gw.app.yoga.fetch(
      'http://gateway.test/graphql',
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-service-client-key': 'ck_any' }, body: JSON.stringify({ query: '{ __typename }' }) },
      { req: { socket: { remoteAddress: '203.0.113.9' }, headers: { authorization: `Bearer ${token}`, 'x-service-client-key': 'ck_any' } } },
    );

  it('reports the refused callers: none held at first, one entry per refused token, the bound at all times', async () => {
    const before = await metrics();
    expect(sample(before, 'gateway_held_bytes', 'refused_callers')).toBe(0);
    expect(sample(before, 'gateway_held_max_bytes', 'refused_callers')).toBe(REFUSED_CALLERS_MAX * HASH_ENTRY_BYTES);

    for (const token of ['forged-1', 'forged-2', 'forged-1']) expect((await forged(token)).status).toBe(200);
    // Two distinct tokens, each refused once by the alerts service; the repeat is answered from the cache.
    expect(gw.sim.controls.counts()['alerts GET /v2/auth']).toBe(2);
    expect(sample(await metrics(), 'gateway_held_bytes', 'refused_callers')).toBe(2 * HASH_ENTRY_BYTES);
  });

  it('reports the delivered webhook bodies: one entry per body delivered, none for a repeat', async () => {
    expect(sample(await metrics(), 'gateway_held_bytes', 'delivered_webhooks')).toBe(0);
    const body = { events: [priceChange('evt-gauge-1'), priceChange('evt-gauge-2')] };
    expect((await postWebhook(gw, body)).status).toBe(200);
    expect((await postWebhook(gw, body)).body).toMatchObject({ duplicates: 2 });
    const after = await metrics();
    expect(sample(after, 'gateway_held_bytes', 'delivered_webhooks')).toBeGreaterThan(0);
    expect(sample(after, 'gateway_held_bytes', 'delivered_webhooks')).toBe(sample(after, 'gateway_held_max_bytes', 'delivered_webhooks')! / DELIVERED_BODIES);
  });
});

describe('refusals not yet told to the other replicas', () => {
  it('are held within their bound while Redis is away, and reported', async () => {
    const registry = new Registry();
    registerHeldGauges(registry);
    const away = { publish: () => Promise.reject(new Error('Redis is away')), on: () => away, off: () => away } as unknown as Redis;
    const shared = shareRevocations(createVerifiedCallers({ ttlMs: 60_000 }), { url: 'redis://127.0.0.1:1', publisher: away, logger: createLogger({ logLevel: 'silent' }), ttlMs: 60_000 });
    try {
      for (const hash of ['a', 'b', 'c']) shared.verifiedCallers.forgetIdentity(hash.repeat(64));
      await new Promise((resolve) => setImmediate(resolve));
      const exposition = await registry.metrics();
      expect(sample(exposition, 'gateway_held_bytes', 'untold_revocations')).toBe(3 * HASH_ENTRY_BYTES);
      expect(sample(exposition, 'gateway_held_max_bytes', 'untold_revocations')).toBe(UNTOLD_MAX * HASH_ENTRY_BYTES);
    } finally {
      await shared.close();
    }
  });
});
