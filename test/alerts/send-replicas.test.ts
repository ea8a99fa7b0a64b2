import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createRedisIdempotencyStore } from '../../src/stores/idempotency.js';
import { startTestGateway, useRedisReplicas, type TestGateway } from '../helpers/gateway.js';
import { freePort, needsRedis } from '../helpers/processes.js';

const haveRedis = needsRedis('test/alerts/send-replicas.test.ts');

const SEND_ROUTE = 'POST /v2/:appId/send';
const SEND = /* GraphQL */ `
  mutation Send($input: SendNotificationInput!) {
    sendNotification(input: $input) { accepted recipientCount userErrors { code field } }
  }
`;

describe.runIf(haveRedis)('one send per idempotency key, whichever replica answers (Redis)', () => {
  const r = useRedisReplicas({ resetEach: true });

  const sends = () => r.sim.controls.count('alerts', SEND_ROUTE);
  const input = (overrides: Record<string, unknown> = {}) => ({
    appId: r.sim.alerts.demo.appId,
    channels: ['IN_APP'],
    title: 'Rate change',
    body: 'USDC deposit APY moved to 7.1 %.',
    recipient: { walletAddress: r.sim.alerts.demo.walletAddress },
    idempotencyKey: 'replicas-1',
    ...overrides,
  });
  const send = async (gw: TestGateway, variables: Record<string, unknown>) => {
    const res = await gw.execute(SEND, { input: variables }, { 'x-service-api-key': r.sim.alerts.demo.apiKey });
    return res;
  };

  it('sends once when the same key reaches replica A and then replica B', async () => {
    const first = await send(r.a, input());
    const second = await send(r.b, input());
    expect(first.data?.['sendNotification']).toEqual({ accepted: true, recipientCount: 1, userErrors: [] });
    expect(second.data?.['sendNotification']).toEqual(first.data?.['sendNotification']);
    expect(sends()).toBe(1);
  });

  it('makes a repeat on the other replica wait for the send in flight, then answers its result', async () => {
    r.sim.controls.setLatency({ service: 'alerts', route: SEND_ROUTE }, { fixedMs: 300 });
    const [first, second] = await Promise.all([send(r.a, input()), send(r.b, input())]);
    expect(first.data?.['sendNotification']).toMatchObject({ accepted: true, recipientCount: 1 });
    expect(second.data?.['sendNotification']).toEqual(first.data?.['sendNotification']);
    expect(sends()).toBe(1);
  });

  it('refuses another input under the same key on either replica, while pending and after', async () => {
    r.sim.controls.setLatency({ service: 'alerts', route: SEND_ROUTE }, { fixedMs: 300 });
    const pending = send(r.a, input());
    await expect.poll(async () => (await r.probe.keys('gateway:idempotency:*')).length).toBe(1); // A's claim is in Redis
    const whilePending = await send(r.b, input({ title: 'Another title' }));
    await pending;
    const afterOnA = await send(r.a, input({ body: 'Another body.' }));
    const afterOnB = await send(r.b, input({ title: 'Another title' }));
    for (const res of [whilePending, afterOnA, afterOnB]) {
      expect(res.data?.['sendNotification']).toEqual({
        accepted: false,
        recipientCount: null,
        userErrors: [{ code: 'IDEMPOTENCY_KEY_REUSED', field: ['idempotencyKey'] }],
      });
    }
    expect(sends()).toBe(1);
  });

  it('frees the key when the send failed, so a retry on the other replica sends', async () => {
    r.sim.controls.setFault({ service: 'alerts', route: SEND_ROUTE }, { status: 503 });
    const failed = await send(r.a, input());
    expect(failed.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
    const failedCalls = sends();
    r.sim.controls.setFault({ service: 'alerts', route: SEND_ROUTE }, null);
    const retried = await send(r.b, input());
    expect(retried.data?.['sendNotification']).toMatchObject({ accepted: true, recipientCount: 1 });
    expect(sends()).toBe(failedCalls + 1);
  });

  it('keeps in Redis a hash of the API key and idempotency key, never the API key', async () => {
    await send(r.a, input());
    const keys = await r.probe.keys('gateway:idempotency:*');
    const expected = createHash('sha256').update(r.sim.alerts.demo.apiKey).update('\n').update('replicas-1').digest('base64url');
    expect(keys).toEqual([`gateway:idempotency:${expected}`]);
    const stored = (await r.probe.get(keys[0]!))!;
    expect(stored).not.toContain(r.sim.alerts.demo.apiKey);
    expect(JSON.parse(stored)).toMatchObject({ state: 'done', value: { recipientCount: 1 } });
    const ttlHours = (await r.probe.pttl(keys[0]!)) / 3_600_000;
    expect(ttlHours).toBeGreaterThan(23.9);
    expect(ttlHours).toBeLessThanOrEqual(24);
  });

  it('refuses a repeat, retryable, once it has waited its bound for a send still in flight', async () => {
    const store = createRedisIdempotencyStore({ redis: r.probe, logger: createLogger({ logLevel: 'silent' }), waitMs: 200, pollMs: 20 });
    const scope = { apiKey: 'sak_wait', idempotencyKey: 'k', fingerprint: 'f' };
    let release!: () => void;
    const first = store.run(scope, () => new Promise<number>((resolve) => (release = () => resolve(7))));
    await expect.poll(async () => (await r.probe.keys('gateway:idempotency:*')).length).toBe(1);
    let runs = 0;
    await expect(store.run(scope, () => Promise.resolve(++runs))).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE', retryable: true } });
    release();
    expect(await first).toEqual({ status: 'done', value: 7, replayed: false });
    expect(await store.run(scope, () => Promise.resolve(++runs))).toEqual({ status: 'done', value: 7, replayed: true });
    expect(runs).toBe(0);
  });

  it('fails closed when Redis cannot be reached: a send with a key is refused, retryable, and nothing is sent', async () => {
    const unreachable = `redis://127.0.0.1:${await freePort()}`;
    const gw = await startTestGateway({ sim: r.sim, config: { redisUrl: unreachable } });
    try {
      const res = await send(gw, input());
      expect(res.data?.['sendNotification']).toBeNull();
      expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'alerts', retryable: true });
      expect(sends()).toBe(0);
      // Without a key nothing needs Redis: the send goes out.
      const { idempotencyKey: _none, ...keyless } = input();
      expect((await send(gw, keyless)).data?.['sendNotification']).toMatchObject({ accepted: true });
      expect(sends()).toBe(1);
    } finally {
      await gw.close();
    }
  });
});
