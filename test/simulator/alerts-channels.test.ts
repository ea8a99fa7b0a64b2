import { describe, expect, it } from 'vitest';
import { UUID, sim, demo, asDemo, asSub, useAlertsSimulator } from '../helpers/alerts-simulator.js';

useAlertsSimulator();

describe('channels', () => {
  it('lists the demo channels, keeping the TELEGRAM key with its EMAIL type', async () => {
    const r = await asDemo('GET', '/v2/channels');
    expect(r.status).toBe(200);
    expect(r.json.EMAIL).toMatchObject({ type: 'EMAIL', value: 'demo@alerts-sim.example', verified: true });
    expect(r.json.TELEGRAM.type).toBe('EMAIL');
    for (const ch of Object.values<Record<string, unknown>>(r.json)) {
      expect(typeof ch['id']).toBe('string');
      expect(typeof ch['value']).toBe('string');
      expect(typeof ch['verified']).toBe('boolean');
      expect(typeof ch['subscribed']).toBe('boolean');
    }
    const apps = r.json.EMAIL.subscribedApps as { id: string; name: string; icon: string | null }[];
    expect(apps.map((a) => a.id)).toContain(demo.appId);
    for (const a of apps) expect(a.id).toMatch(UUID);
  });

  it('runs the email lifecycle: prepare → 409 → wrong code 422 → verify → listed verified → delete', async () => {
    expect((await asDemo('POST', '/v2/channel/email/delete')).status).toBe(201);
    expect((await asDemo('GET', '/v2/channels')).json.EMAIL).toBeUndefined();

    expect((await asDemo('POST', '/v2/channel/email/prepare', { email: 'not-an-address' })).status).toBe(400);
    expect((await asDemo('POST', '/v2/channel/email/prepare', {})).status).toBe(400);

    const prep = await asDemo('POST', '/v2/channel/email/prepare', { email: 'new@example.org' });
    expect(prep.status).toBe(200);
    expect(prep.json).toMatchObject({ type: 'EMAIL', value: 'new@example.org', verified: false });
    expect((await asDemo('GET', '/v2/channels')).json.EMAIL.verified).toBe(false);

    const again = await asDemo('POST', '/v2/channel/email/prepare', { email: 'other@example.org' });
    expect(again.status).toBe(409);
    expect(typeof again.json.message).toBe('string');

    const code = sim.alerts.verificationCode(demo.walletAddress)!;
    expect(code).toMatch(/^\d{6}$/);
    const wrong = code === '000000' ? '111111' : '000000';
    const bad = await asDemo('POST', '/v2/channel/email/verify', { code: wrong });
    expect(bad.status).toBe(422);
    expect(typeof bad.json.message).toBe('string');

    const good = await asDemo('POST', '/v2/channel/email/verify', { code });
    expect(good.status).toBe(200);
    expect(good.json).toMatchObject({ type: 'EMAIL', value: 'new@example.org', verified: true });
    expect(sim.alerts.verificationCode(demo.walletAddress)).toBeUndefined();

    const listed = await asDemo('GET', '/v2/channels');
    expect(listed.json.EMAIL).toMatchObject({ value: 'new@example.org', verified: true, id: good.json.id });

    expect((await asDemo('POST', '/v2/channel/email/delete')).status).toBe(201);
    expect((await asDemo('GET', '/v2/channels')).json.EMAIL).toBeUndefined();
    expect((await asDemo('GET', '/v2/channels')).json.TELEGRAM).toBeDefined();
  });

  it('rejects an expired code with 422 and resend issues a fresh one (201 {})', async () => {
    await asDemo('POST', '/v2/channel/email/delete');
    await asDemo('POST', '/v2/channel/email/prepare', { email: 'late@example.org' });
    const first = sim.alerts.verificationCode(demo.walletAddress)!;
    const t0 = Date.now();
    sim.alerts.setClock(() => t0 + 11 * 60_000);
    expect((await asDemo('POST', '/v2/channel/email/verify', { code: first })).status).toBe(422);

    const resend = await asDemo('POST', '/v2/channel/email/resend');
    expect(resend.status).toBe(201);
    expect(resend.json).toEqual({});
    const second = sim.alerts.verificationCode(demo.walletAddress)!;
    expect(second).toMatch(/^\d{6}$/);
    expect((await asDemo('POST', '/v2/channel/email/verify', { code: second })).status).toBe(200);

    const verified = await asDemo('POST', '/v2/channel/email/resend');
    expect(verified.status).toBe(409);
    expect(typeof verified.json.message).toBe('string');

    await asDemo('POST', '/v2/channel/email/delete');
    const none = await asDemo('POST', '/v2/channel/email/resend');
    expect(none.status).toBe(422);
    expect(typeof none.json.message).toBe('string');
    expect((await asDemo('POST', '/v2/channel/email/verify', { code: second })).status).toBe(422);
  });

  it('prepares, links and deletes Telegram', async () => {
    const wallet = [...sim.alerts.subscribers.values()].find((s) => !s.channels.has('TELEGRAM'))!.walletAddress;
    const prep = await asSub(wallet, 'POST', '/v2/channel/telegram/prepare');
    expect(prep.status).toBe(200);
    expect(prep.json).toMatchObject({ type: 'TELEGRAM', verified: false });
    expect(prep.json.verification.link).toMatch(/^https:\/\/t\.me\//);
    expect((await asSub(wallet, 'GET', '/v2/channels')).json.TELEGRAM.verified).toBe(false);

    expect(sim.alerts.completeTelegramLink(wallet, '@someone')).toBe(true);
    expect((await asSub(wallet, 'GET', '/v2/channels')).json.TELEGRAM).toMatchObject({ value: '@someone', verified: true });

    const del = await asSub(wallet, 'POST', '/v2/channel/telegram/delete');
    expect(del.status).toBe(200);
    expect(del.json).toEqual({});
    expect((await asSub(wallet, 'GET', '/v2/channels')).json.TELEGRAM).toBeUndefined();

    expect((await asDemo('POST', '/v2/channel/telegram/delete')).status).toBe(200);
    expect((await asDemo('GET', '/v2/channels')).json.TELEGRAM).toBeUndefined();
  });

  it('registers push tokens (202) and validates the body', async () => {
    const sub = await asDemo('POST', '/v2/push/subscribe', { fcmToken: 'fcm-1', deviceId: 'device-1', appId: demo.appId });
    expect(sub.status).toBe(202);
    expect(sub.json).toEqual({});
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.push).toMatchObject([{ fcmToken: 'fcm-1', deviceId: 'device-1', appId: demo.appId }]);
    expect((await asDemo('POST', '/v2/push/subscribe', { fcmToken: 'fcm-2' })).status).toBe(202);
    expect((await asDemo('POST', '/v2/push/subscribe', {})).status).toBe(400);
    expect((await asDemo('POST', '/v2/push/subscribe', { fcmToken: '' })).status).toBe(400);
    expect((await asDemo('POST', '/v2/push/subscribe', { fcmToken: 'x', appId: 'not-a-uuid' })).status).toBe(400);
    expect((await asDemo('POST', '/v2/push/unsubscribe', { fcmToken: 'x', appId: 'not-a-uuid' })).status).toBe(400);
    expect((await asDemo('POST', '/v2/push/unsubscribe', {})).status).toBe(400);
    const unsub = await asDemo('POST', '/v2/push/unsubscribe', { fcmToken: 'fcm-1' });
    expect(unsub.status).toBe(202);
    expect(unsub.json).toEqual({});
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.push.map((p) => p.fcmToken)).toEqual(['fcm-2']);
  });
});
