import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Target } from '../../src/simulator/controls.js';
import { type Harness, startHarness, callsTo, hits, disconnectDuring } from '../helpers/disconnect-harness.js';

describe('a client that disconnects during a mutation', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.gw.sim.controls.reset();
    h.gw.sim.alerts.reset();
    h.calls.length = 0;
  });

  it('does not abort the write: the channel is created', async () => {
    const target: Target = { service: 'alerts', route: 'POST /v2/channel/email/prepare' };
    const subscriber = [...h.gw.sim.alerts.subscribers.values()].find((s) => !s.channels.has('EMAIL'))!;
    const headers = { authorization: `Bearer ${subscriber.token}`, 'x-service-client-key': h.gw.sim.alerts.demo.clientKey };
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });

    await disconnectDuring(
      h,
      target,
      'mutation { prepareEmailChannel(input: { email: "left@example.com" }) { channel { id } userErrors { code } } }',
      1,
      headers,
    );

    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(1));
    expect(callsTo(h, target)[0]).toMatchObject({ status: 200, attempts: 1 });
    expect(callsTo(h, target)[0]!.errorCode).toBeUndefined();
    expect(subscriber.channels.get('EMAIL')).toMatchObject({ value: 'left@example.com', verified: false });
    expect(hits(h, target)).toBe(1);
  });

  it('does not abort a send: the alerts service records it', async () => {
    const target: Target = { service: 'alerts', route: 'POST /v2/:appId/send' };
    const { demo } = h.gw.sim.alerts;
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });
    const mutation = `mutation { sendNotification(input: {
      appId: "${demo.appId}", channels: [IN_APP], title: "Rate change", body: "APY moved.",
      recipient: { walletAddress: "${demo.walletAddress}" }
    }) { accepted } }`;

    await disconnectDuring(h, target, mutation, 1, { 'x-service-api-key': demo.apiKey });

    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(1));
    expect(callsTo(h, target)[0]).toMatchObject({ status: 202, attempts: 1 });
    expect(callsTo(h, target)[0]!.errorCode).toBeUndefined();
    expect(h.gw.sim.alerts.deliveries).toHaveLength(1);
    expect(hits(h, target)).toBe(1);
  });
});
