import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { SEND_ROUTE, SEND, sendKit } from '../helpers/alerts-send.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });
const { sends, demo, appHeaders, input, send } = sendKit(gw);

describe('the app key', () => {
  it('is required: without X-Service-Api-Key the answer is UNAUTHENTICATED and nothing is sent', async () => {
    const res = await gw.execute(SEND, { input: input() }, gw.viewerHeaders);
    expect(res.data).toEqual({ sendNotification: null });
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(gw.sim.controls.count('alerts')).toBe(0);
  });

  it('a key the service refuses (401) is UNAUTHENTICATED', async () => {
    const res = await gw.execute(SEND, { input: input() }, { 'x-service-api-key': 'sak_unknown' });
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(sends()).toBe(1);
  });

  it("another app's id (403) is APP_NOT_OWNED", async () => {
    const other = gw.sim.alerts.apps.find((a) => a.id !== demo().appId)!;
    expect(await send(input({ appId: other.id }))).toEqual({
      accepted: false,
      recipientCount: null,
      userErrors: [{ code: 'APP_NOT_OWNED', message: expect.any(String), field: ['appId'] }],
    });
  });

  it('reaches the send call and no other call; the subscriber credentials never reach it', async () => {
    const res = await gw.execute(
      `mutation($input: SendNotificationInput!) {
        markNotificationsRead(input: {}) { unreadCount viewer { walletAddress apps { appId } } }
        sendNotification(input: $input) { accepted }
      }`,
      { input: input() },
      { ...gw.viewerHeaders, ...appHeaders() },
    );
    expect(res.errors).toBeUndefined();
    const log = gw.sim.controls.headerLog();
    expect(log.length).toBeGreaterThan(3);
    const withKey = log.filter((e) => e.headers['x-service-api-key'] !== undefined);
    expect(withKey.map((e) => `${e.service} ${e.route}`)).toEqual([`alerts ${SEND_ROUTE}`]);
    expect(withKey[0]!.headers['x-service-api-key']).toBe(demo().apiKey);
    expect(withKey[0]!.headers['authorization']).toBeUndefined();
    expect(withKey[0]!.headers['x-service-client-key']).toBeUndefined();
  });

  it('failures of the service are UPSTREAM_UNAVAILABLE', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: SEND_ROUTE }, { status: 502 });
    const res = await gw.execute(SEND, { input: input() }, appHeaders());
    expect(res.data).toEqual({ sendNotification: null });
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'alerts', retryable: true });
  });
});
