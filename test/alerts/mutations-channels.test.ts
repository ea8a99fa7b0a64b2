import { describe, expect, it } from 'vitest';
import { operation, useTestGateway } from '../helpers/gateway.js';
import { UNKNOWN_APP_ID, alertsKit } from '../helpers/alerts-gateway.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });
const { count, demo, me, headersOf, executeNamed, mutate } = alertsKit(gw);

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
