import { describe, expect, it } from 'vitest';
import type { SubscriberRecord } from '../../src/simulator/alerts/index.js';
import { operation, useTestGateway, type GraphQLResponse } from '../helpers/gateway.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });


const count = (route: string) => gw.sim.controls.count('alerts', route);
const demo = () => gw.sim.alerts.demo;
const me = (): SubscriberRecord => gw.sim.alerts.subscribers.get(demo().walletAddress)!;
const UNKNOWN_APP_ID = '00000000-0000-4000-8000-000000000000';

/** The headers of a subscriber of the simulator. */
function headersOf(subscriber: SubscriberRecord): Record<string, string> {
  return { authorization: `Bearer ${subscriber.token}`, 'x-service-client-key': demo().clientKey };
}

/** Runs one named operation of a document holding several (the helper sends no operationName). */
async function executeNamed(
  document: string,
  operationName: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<GraphQLResponse> {
  const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query: document, operationName, variables }),
  });
  return { status: response.status, ...((await response.json()) as Omit<GraphQLResponse, 'status'>) };
}

async function mutate(query: string, variables: Record<string, unknown> = {}, headers = gw.viewerHeaders) {
  const res = await gw.execute(query, variables, headers);
  expect(res.errors).toBeUndefined();
  return res.data!;
}

describe('the ChannelSetup operations, unchanged', () => {
  it('prepare an email channel, verify it with the emailed code, and mark the inbox read', async () => {
    const subscriber = [...gw.sim.alerts.subscribers.values()].find((s) => !s.channels.has('EMAIL'))!;
    const headers = headersOf(subscriber);
    const document = operation('ChannelSetup');

    const prepared = await executeNamed(document, 'PrepareEmail', { email: 'new.holder@example.com' }, headers);
    expect(prepared.errors).toBeUndefined();
    expect(prepared.data!['prepareEmailChannel']).toEqual({
      channel: { id: expect.any(String), type: 'EMAIL', value: 'new.holder@example.com', verified: false, subscribed: false },
      userErrors: [],
    });

    const code = gw.sim.alerts.verificationCode(subscriber.walletAddress)!;
    const verified = await executeNamed(document, 'VerifyEmail', { code }, headers);
    expect(verified.errors).toBeUndefined();
    expect(verified.data!['verifyEmailChannel']).toEqual({
      channel: { id: prepared.data!['prepareEmailChannel'].channel.id, type: 'EMAIL', value: 'new.holder@example.com', verified: true },
      userErrors: [],
    });

    const read = await executeNamed(document, 'MarkAllRead', {}, headers);
    expect(read.errors).toBeUndefined();
    expect(read.data!['markNotificationsRead']).toEqual({ userErrors: [] });
    expect(subscriber.inbox.filter((a) => !a.read)).toHaveLength(0);

    expect(count('POST /v2/channel/email/prepare')).toBe(1);
    expect(count('POST /v2/channel/email/verify')).toBe(1);
    expect(count('POST /v2/history/read')).toBe(1);
  });
});

describe('email channel', () => {
  it('refuses a malformed address as INVALID_EMAIL without calling the service', async () => {
    const data = await mutate(`mutation { prepareEmailChannel(input: { email: "not-an-address" }) { channel { id } userErrors { code message field } } }`);
    expect(data['prepareEmailChannel']).toEqual({
      channel: null,
      userErrors: [{ code: 'INVALID_EMAIL', message: expect.any(String), field: ['email'] }],
    });
    expect(count('POST /v2/channel/email/prepare')).toBe(0);
  });

  it('answers CHANNEL_EXISTS when an email channel is set up (409)', async () => {
    const data = await mutate(`mutation { prepareEmailChannel(input: { email: "other@example.com" }) { channel { id } userErrors { code field } } }`);
    expect(data['prepareEmailChannel']).toEqual({ channel: null, userErrors: [{ code: 'CHANNEL_EXISTS', field: null }] });
    expect(count('POST /v2/channel/email/prepare')).toBe(1);
  });

  it('shows the new state in the same request: viewer.channels is read again after each change', async () => {
    const data = await mutate(`mutation {
      deleted: deleteEmailChannel { userErrors { code } viewer { channels { key } } }
      prepared: prepareEmailChannel(input: { email: "again@example.com" }) {
        channel { value verified }
        userErrors { code }
        viewer { channels { key value verified } email: channel(type: EMAIL) { value verified } }
      }
    }`);
    expect(data['deleted']).toEqual({ userErrors: [], viewer: { channels: [{ key: 'TELEGRAM' }] } });
    expect(data['prepared']).toEqual({
      channel: { value: 'again@example.com', verified: false },
      userErrors: [],
      viewer: {
        channels: [
          { key: 'EMAIL', value: 'again@example.com', verified: false },
          { key: 'TELEGRAM', value: expect.any(String), verified: true },
        ],
        email: { value: 'again@example.com', verified: false },
      },
    });
    expect(count('GET /v2/channels')).toBe(2);
  });

  it('verifies with the emailed code; a wrong code is INVALID_CODE (422), a malformed one is refused without a call', async () => {
    await mutate(`mutation { deleteEmailChannel(input: {}) { userErrors { code } } }`);
    await mutate(`mutation { prepareEmailChannel(input: { email: "v@example.com" }) { userErrors { code } } }`);
    const code = gw.sim.alerts.verificationCode(demo().walletAddress)!;
    const wrong = code === '000000' ? '111111' : '000000';
    const VERIFY = `mutation($code: String!) { verifyEmailChannel(input: { code: $code }) { channel { verified } userErrors { code field } } }`;

    expect((await mutate(VERIFY, { code: wrong }))['verifyEmailChannel']).toEqual({
      channel: null,
      userErrors: [{ code: 'INVALID_CODE', field: ['code'] }],
    });
    expect(count('POST /v2/channel/email/verify')).toBe(1);

    expect((await mutate(VERIFY, { code: '12ab' }))['verifyEmailChannel']).toEqual({
      channel: null,
      userErrors: [{ code: 'INVALID_CODE', field: ['code'] }],
    });
    expect(count('POST /v2/channel/email/verify')).toBe(1);

    expect((await mutate(VERIFY, { code }))['verifyEmailChannel']).toEqual({ channel: { verified: true }, userErrors: [] });
    expect(me().channels.get('EMAIL')!.verified).toBe(true);
  });

  it('resends the code while unverified; ALREADY_VERIFIED (409) and CHANNEL_NOT_FOUND (422) otherwise', async () => {
    const RESEND = `mutation { resendEmailVerification(input: {}) { userErrors { code } } }`;
    expect((await mutate(RESEND))['resendEmailVerification']).toEqual({ userErrors: [{ code: 'ALREADY_VERIFIED' }] });

    await mutate(`mutation { deleteEmailChannel(input: {}) { userErrors { code } } }`);
    expect(me().channels.has('EMAIL')).toBe(false);
    expect((await mutate(RESEND))['resendEmailVerification']).toEqual({ userErrors: [{ code: 'CHANNEL_NOT_FOUND' }] });

    await mutate(`mutation { prepareEmailChannel(input: { email: "r@example.com" }) { userErrors { code } } }`);
    delete me().pendingEmail;
    expect((await mutate(RESEND))['resendEmailVerification']).toEqual({ userErrors: [] });
    expect(gw.sim.alerts.verificationCode(demo().walletAddress)).toMatch(/^\d{6}$/);
    expect(count('POST /v2/channel/email/resend')).toBe(3);
  });
});

describe('telegram channel', () => {
  it('answers the verification link and the channel; delete removes it', async () => {
    const prepared = await mutate(`mutation { prepareTelegramChannel { channel { key verified } verificationLink userErrors { code } } }`);
    expect(prepared['prepareTelegramChannel']).toEqual({
      channel: { key: 'TELEGRAM', verified: true },
      verificationLink: expect.stringMatching(/^https:\/\/t\.me\/\w+\?start=\w+$/),
      userErrors: [],
    });
    expect(prepared['prepareTelegramChannel'].verificationLink).toContain(me().telegramLinkCode);

    const deleted = await mutate(`mutation { deleteTelegramChannel(input: {}) { userErrors { code } viewer { channel(type: TELEGRAM) { key } } } }`);
    expect(deleted['deleteTelegramChannel']).toEqual({ userErrors: [], viewer: { channel: null } });
    expect(me().channels.has('TELEGRAM')).toBe(false);
    expect(count('POST /v2/channel/telegram/prepare')).toBe(1);
    expect(count('POST /v2/channel/telegram/delete')).toBe(1);
  });
});

describe('mobile push', () => {
  const REGISTER = `mutation($input: RegisterPushDeviceInput!) { registerPushDevice(input: $input) { userErrors { code field } } }`;
  const UNREGISTER = `mutation($input: UnregisterPushDeviceInput!) { unregisterPushDevice(input: $input) { userErrors { code field } } }`;

  it('registers and unregisters a device', async () => {
    const input = { fcmToken: 'fcm-token-1', deviceId: 'pixel-8', appId: demo().appId };
    expect((await mutate(REGISTER, { input }))['registerPushDevice']).toEqual({ userErrors: [] });
    expect(me().push).toEqual([expect.objectContaining({ fcmToken: 'fcm-token-1', deviceId: 'pixel-8', appId: demo().appId })]);

    expect((await mutate(UNREGISTER, { input: { fcmToken: 'fcm-token-1' } }))['unregisterPushDevice']).toEqual({ userErrors: [] });
    expect(me().push).toEqual([]);
    expect(count('POST /v2/push/subscribe')).toBe(1);
    expect(count('POST /v2/push/unsubscribe')).toBe(1);
  });

  it('answers UNKNOWN_APP for an app the service does not know (422), and refuses bad input without a call', async () => {
    expect((await mutate(REGISTER, { input: { fcmToken: 't', appId: UNKNOWN_APP_ID } }))['registerPushDevice']).toEqual({
      userErrors: [{ code: 'UNKNOWN_APP', field: ['appId'] }],
    });
    expect(count('POST /v2/push/subscribe')).toBe(1);

    const bad = await mutate(REGISTER, { input: { fcmToken: '', deviceId: '', appId: 'kamino' } });
    expect(bad['registerPushDevice'].userErrors).toEqual([
      { code: 'INVALID_INPUT', field: ['fcmToken'] },
      { code: 'INVALID_INPUT', field: ['deviceId'] },
      { code: 'INVALID_INPUT', field: ['appId'] },
    ]);
    expect(count('POST /v2/push/subscribe')).toBe(1);
  });
});

describe('app subscriptions', () => {
  const UNSUBSCRIBE = `mutation($input: UnsubscribeFromAppsInput!) {
    unsubscribeFromApps(input: $input) {
      apps { appId subscribed }
      userErrors { code field }
      viewer { email: channel(type: EMAIL) { subscribedApps { appId } } }
    }
  }`;
  const SUBSCRIBE = `mutation($input: SubscribeToAppsInput!) {
    subscribeToApps(input: $input) { apps { appId subscribed } userErrors { code field } }
  }`;

  it('unsubscribes and subscribes again; the payload shows the apps and channels after the change', async () => {
    const appId = demo().appId;
    const off = await mutate(UNSUBSCRIBE, { input: { appIds: [appId] } });
    expect(off['unsubscribeFromApps']).toEqual({
      apps: [{ appId, subscribed: false }],
      userErrors: [],
      viewer: { email: { subscribedApps: expect.not.arrayContaining([{ appId }]) } },
    });
    expect(me().apps.has(appId)).toBe(false);

    const on = await mutate(SUBSCRIBE, { input: { appIds: [appId], channels: ['IN_APP', 'EMAIL'] } });
    expect(on['subscribeToApps']).toEqual({ apps: [{ appId, subscribed: true }], userErrors: [] });
    expect([...me().apps.get(appId)!].sort()).toEqual(['EMAIL', 'IN_APP']);
    expect(count('POST /v2/unsubscribe')).toBe(1);
    expect(count('POST /v2/subscribe')).toBe(1);
    expect(count('GET /v2/apps')).toBe(2);
  });

  it('reads the apps afresh in the same request after a change', async () => {
    const appId = demo().appId;
    const data = await mutate(`mutation($ids: [String!]) {
      off: unsubscribeFromApps(input: { appIds: $ids }) { apps { subscribed } }
      on: subscribeToApps(input: { appIds: $ids }) { apps { subscribed } viewer { apps { appId subscribed } } }
    }`, { ids: [appId] });
    expect(data['off']).toEqual({ apps: [{ subscribed: false }] });
    expect(data['on'].apps).toEqual([{ subscribed: true }]);
    expect(data['on'].viewer.apps).toContainEqual({ appId, subscribed: true });
  });

  it('answers UNKNOWN_APP for an unknown app (422) and refuses malformed lists without a call', async () => {
    expect((await mutate(SUBSCRIBE, { input: { appIds: [UNKNOWN_APP_ID] } }))['subscribeToApps']).toEqual({
      apps: null,
      userErrors: [{ code: 'UNKNOWN_APP', field: ['appIds'] }],
    });
    expect(count('POST /v2/subscribe')).toBe(1);

    expect((await mutate(SUBSCRIBE, { input: { appIds: [] } }))['subscribeToApps'].userErrors).toEqual([
      { code: 'INVALID_INPUT', field: ['appIds'] },
    ]);
    expect((await mutate(SUBSCRIBE, { input: { appIds: ['x'], channels: [] } }))['subscribeToApps'].userErrors).toEqual([
      { code: 'INVALID_INPUT', field: ['appIds', '0'] },
      { code: 'INVALID_INPUT', field: ['channels'] },
    ]);
    expect(count('POST /v2/subscribe')).toBe(1);
  });
});

describe('inbox', () => {
  it('marks notifications read and answers the unread count after the change', async () => {
    const appId = demo().appId;
    const unreadOf = (id?: string) => me().inbox.filter((a) => !a.read && (!id || a.appId === id)).length;
    expect(unreadOf(appId)).toBeGreaterThan(0);

    const one = await mutate(`mutation($ids: [String!]) { markNotificationsRead(input: { appIds: $ids }) { unreadCount userErrors { code } viewer { unreadCount } } }`, {
      ids: [appId],
    });
    expect(unreadOf(appId)).toBe(0);
    expect(one['markNotificationsRead']).toEqual({ unreadCount: 0, userErrors: [], viewer: { unreadCount: unreadOf() } });
    expect(unreadOf()).toBeGreaterThan(0);

    const all = await mutate(`mutation { markNotificationsRead { unreadCount } }`);
    expect(all['markNotificationsRead']).toEqual({ unreadCount: 0 });
    expect(unreadOf()).toBe(0);
    expect(count('POST /v2/history/read')).toBe(2);
  });

  it('clears read notifications; the inbox read in the same request is empty', async () => {
    const data = await mutate(`mutation {
      before: markNotificationsRead(input: {}) { viewer { inbox(first: 5) { edges { node { id } } } } }
      cleared: clearReadNotifications(input: {}) { userErrors { code } viewer { inbox(first: 5) { edges { node { id } } } } }
    }`);
    expect(data['before'].viewer.inbox.edges.length).toBeGreaterThan(0);
    expect(data['cleared']).toEqual({ userErrors: [], viewer: { inbox: { edges: [] } } });
    expect(me().inbox).toHaveLength(0);
    expect(count('POST /v2/history/clear')).toBe(1);
  });

  it('refuses an app id that is not a UUID without a call', async () => {
    const data = await mutate(`mutation { clearReadNotifications(input: { appIds: ["kamino"] }) { userErrors { code field message } } }`);
    expect(data['clearReadNotifications'].userErrors).toEqual([{ code: 'INVALID_INPUT', field: ['appIds', '0'], message: 'An app id is a UUID.' }]);
    expect(count('POST /v2/history/clear')).toBe(0);
  });
});

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
