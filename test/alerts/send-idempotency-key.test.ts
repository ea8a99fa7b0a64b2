import { describe, expect, it } from 'vitest';
import { startTestGateway, useTestGateway } from '../helpers/gateway.js';
import { wallet, SEND_ROUTE, SEND, sendKit } from '../helpers/alerts-send.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });
const { sends, demo, appHeaders, input, send } = sendKit(gw);

describe('idempotency', () => {
  it('answers a repeat of the same key and input with the first result, without a second call', async () => {
    const first = await send(input({ idempotencyKey: 'order-1', recipient: { walletAddresses: [wallet(1), wallet(2)] } }));
    const again = await send(input({ idempotencyKey: 'order-1', recipient: { walletAddresses: [wallet(1), wallet(2)] } }));
    expect(first).toEqual({ accepted: true, recipientCount: 2, userErrors: [] });
    expect(again).toEqual(first);
    expect(sends()).toBe(1);
    expect(gw.sim.alerts.deliveries).toHaveLength(1);
    expect(gw.sim.controls.headerLog({ route: SEND_ROUTE })[0]!.headers['idempotency-key']).toBe('order-1');
  });

  it('treats data in another key order as the same input', async () => {
    await send(input({ idempotencyKey: 'k', data: { a: '1', b: '2' } }));
    expect(await send(input({ idempotencyKey: 'k', data: { b: '2', a: '1' } }))).toMatchObject({ accepted: true });
    expect(sends()).toBe(1);
  });

  it('refuses the same key with another input as IDEMPOTENCY_KEY_REUSED, with no call', async () => {
    await send(input({ idempotencyKey: 'order-2' }));
    expect(await send(input({ idempotencyKey: 'order-2', title: 'Something else' }))).toEqual({
      accepted: false,
      recipientCount: null,
      userErrors: [{ code: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String), field: ['idempotencyKey'] }],
    });
    expect(sends()).toBe(1);
  });

  it('keeps keys per API key: the same key from another app is its own send', async () => {
    const other = gw.sim.alerts.apps[1]!;
    await send(input({ idempotencyKey: 'shared' }));
    expect(await send(input({ idempotencyKey: 'shared', appId: other.id }), { 'x-service-api-key': other.apiKey })).toMatchObject({
      accepted: true,
    });
    expect(sends()).toBe(2);
    expect(gw.sim.alerts.deliveries.map((d) => d.appId)).toEqual([demo().appId, other.id]);
  });

  it('sends without a key every time', async () => {
    await send(input());
    await send(input());
    expect(sends()).toBe(2);
  });

  it('forgets a key whose send failed, so a retry goes through', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: SEND_ROUTE }, { status: 503 });
    const failed = await gw.execute(SEND, { input: input({ idempotencyKey: 'retry-me' }) }, appHeaders());
    expect(failed.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    gw.sim.controls.setFault({ service: 'alerts', route: SEND_ROUTE }, null);
    expect(await send(input({ idempotencyKey: 'retry-me' }))).toMatchObject({ accepted: true });
    expect(sends()).toBe(2);
    expect(gw.sim.alerts.deliveries).toHaveLength(1);
  });

  it("relies on the service's own memory when the gateway has none (another replica, a restart)", async () => {
    const replica = await startTestGateway({ sim: gw.sim });
    try {
      await send(input({ idempotencyKey: 'order-3' }));

      const changed = await replica.execute(SEND, { input: input({ idempotencyKey: 'order-3', body: 'Changed' }) }, appHeaders());
      expect(changed.data!['sendNotification']).toEqual({
        accepted: false,
        recipientCount: null,
        userErrors: [{ code: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String), field: ['idempotencyKey'] }],
      });
      expect(sends()).toBe(2);

      const repeat = await replica.execute(SEND, { input: input({ idempotencyKey: 'order-3' }) }, appHeaders());
      expect(repeat.data!['sendNotification']).toEqual({ accepted: true, recipientCount: 1, userErrors: [] });
      expect(sends()).toBe(3);
      expect(gw.sim.alerts.deliveries).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });
});
