import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { alertsKit } from '../helpers/alerts-gateway.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });
const { count, demo, mutate } = alertsKit(gw);

describe('failures', () => {
  const EVERY_SUBSCRIBER_MUTATION = [
    `prepareEmailChannel(input: { email: "a@example.com" })`,
    `verifyEmailChannel(input: { code: "123456" })`,
    `resendEmailVerification(input: {})`,
    `deleteEmailChannel(input: {})`,
    `prepareTelegramChannel(input: {})`,
    `deleteTelegramChannel(input: {})`,
    `registerPushDevice(input: { fcmToken: "t" })`,
    `unregisterPushDevice(input: { fcmToken: "t" })`,
    `subscribeToApps(input: {})`,
    `unsubscribeFromApps(input: {})`,
    `markNotificationsRead(input: {})`,
    `clearReadNotifications(input: {})`,
  ];

  it.each(EVERY_SUBSCRIBER_MUTATION)('%s without credentials is UNAUTHENTICATED, with no upstream call', async (field) => {
    const res = await gw.execute(`mutation { result: ${field} { userErrors { code } } }`, {}, {});
    expect(res.data).toEqual({ result: null });
    expect(res.errors).toEqual([expect.objectContaining({ path: ['result'], extensions: { code: 'UNAUTHENTICATED' } })]);
    expect(gw.sim.controls.count('alerts')).toBe(0);
  });

  it('refuses bad input without credentials as UNAUTHENTICATED too (credentials are checked first)', async () => {
    const res = await gw.execute(`mutation { prepareEmailChannel(input: { email: "nope" }) { userErrors { code } } }`, {}, {});
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
  });

  it('turns a 401 into an UNAUTHENTICATED error', async () => {
    const res = await gw.execute(`mutation { deleteEmailChannel(input: {}) { userErrors { code } } }`, {}, {
      authorization: 'Bearer not-a-token',
      'x-service-client-key': demo().clientKey,
    });
    expect(res.data).toEqual({ deleteEmailChannel: null });
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(count('POST /v2/channel/email/delete')).toBe(1);
  });

  it('turns a fault into UPSTREAM_UNAVAILABLE and a 429 into RATE_LIMITED, with the rest of the response intact', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: 'POST /v2/channel/email/delete' }, { status: 503 });
    gw.sim.controls.setFault({ service: 'alerts', route: 'POST /v2/history/read' }, { status: 429, retryAfterSeconds: 7 });
    const res = await gw.execute(`mutation {
      deleteEmailChannel(input: {}) { userErrors { code } }
      markNotificationsRead(input: {}) { userErrors { code } }
      clearReadNotifications(input: {}) { userErrors { code } }
    }`, {}, gw.viewerHeaders);
    expect(res.data).toEqual({ deleteEmailChannel: null, markNotificationsRead: null, clearReadNotifications: { userErrors: [] } });
    expect(res.errors).toEqual([
      expect.objectContaining({ path: ['deleteEmailChannel'], extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'alerts', retryable: true } }),
      expect.objectContaining({
        path: ['markNotificationsRead'],
        extensions: { code: 'RATE_LIMITED', upstream: 'alerts', retryAfterSeconds: 7 },
      }),
    ]);
  });

  it("turns the service's 400 on an address into INVALID_EMAIL", async () => {
    gw.sim.controls.setFault(
      { service: 'alerts', route: 'POST /v2/channel/email/prepare' },
      { status: 400, body: '{"error":"email must be a valid email address"}' },
    );
    await mutate(`mutation { deleteEmailChannel { userErrors { code } } }`);
    const data = await mutate(`mutation { prepareEmailChannel(input: { email: "a@b.example" }) { userErrors { code field } } }`);
    expect(data['prepareEmailChannel']).toEqual({ userErrors: [{ code: 'INVALID_EMAIL', field: ['email'] }] });
  });

  it("answers a refusal without a code of its own as REJECTED with the gateway's message, never the service's text", async () => {
    const leaks = { 409: 'telegram channel is locked by worker at db.internal:5432', 422: 'at db.internal:5432', 400: 'SELECT * FROM channels' };
    for (const [status, text] of Object.entries(leaks)) {
      gw.sim.controls.setFault(
        { service: 'alerts', route: 'POST /v2/channel/telegram/delete' },
        { status: Number(status), body: JSON.stringify({ message: text, error: text }) },
      );
      const res = await gw.execute(`mutation { deleteTelegramChannel { userErrors { code message field } } }`, {}, gw.viewerHeaders);
      expect(res.errors).toBeUndefined();
      expect(res.data!['deleteTelegramChannel']).toEqual({ userErrors: [{ code: 'REJECTED', message: expect.any(String), field: null }] });
      expect(JSON.stringify(res)).not.toContain('db.internal');
      expect(JSON.stringify(res)).not.toContain(text);
    }
    expect(count('POST /v2/channel/telegram/delete')).toBe(3);
  });

  it("keeps the stable code of a mapped refusal without the service's text", async () => {
    gw.sim.controls.setFault(
      { service: 'alerts', route: 'POST /v2/channel/email/verify' },
      { status: 422, body: '{"message":"at db.internal:5432"}' },
    );
    const res = await gw.execute(
      `mutation { verifyEmailChannel(input: { code: "123456" }) { channel { verified } userErrors { code message field } } }`,
      {},
      gw.viewerHeaders,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!['verifyEmailChannel']).toMatchObject({ userErrors: [{ code: 'INVALID_CODE', field: ['code'] }] });
    expect(JSON.stringify(res)).not.toContain('db.internal');
    expect(count('POST /v2/channel/email/verify')).toBe(1);
  });

  it('echoes clientMutationId', async () => {
    const data = await mutate(`mutation { deleteTelegramChannel(input: { clientMutationId: "m-1" }) { clientMutationId } }`);
    expect(data['deleteTelegramChannel']).toEqual({ clientMutationId: 'm-1' });
  });
});
