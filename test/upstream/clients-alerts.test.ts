import { describe, expect, it } from 'vitest';
import { fixture, ORIGIN } from './helpers.js';
import { agent, useClientsAgent, json, anyPath, creds, upstream, call } from '../helpers/upstream-clients.js';

useClientsAgent();

describe('alerts client', () => {
  it('forwards the caller credentials as-is on subscriber calls, never the gateway key', async () => {
    agent.get(ORIGIN).intercept({ path: '/alerts/v2/channels', method: 'GET' }).reply(200, fixture('channels.json'), json);
    const channels = await upstream().alerts.listChannels(creds);
    expect(channels.map((c) => c.key)).toEqual(['EMAIL', 'TELEGRAM', 'DISCORD']);
    const { headers } = call();
    expect(headers['authorization']).toBe('Bearer caller-token');
    expect(headers['x-service-client-key']).toBe('caller-client-key');
    expect(headers['x-service-api-key']).toBeUndefined();
  });

  it('sends no client key when the caller sent none (the alerts client has no default)', async () => {
    agent.get(ORIGIN).intercept({ path: '/alerts/v2/auth', method: 'GET' }).reply(200, { walletAddress: 'W1' }, json);
    await expect(upstream().alerts.getIdentity({ authorization: 'Bearer t' })).resolves.toEqual({ walletAddress: 'W1' });
    expect(call().headers['x-service-client-key']).toBeUndefined();
  });

  it('maps 401 from the identity call to UNAUTHENTICATED', async () => {
    agent.get(ORIGIN).intercept({ path: '/alerts/v2/auth', method: 'GET' }).reply(401, '');
    await expect(upstream().alerts.getIdentity(creds)).rejects.toMatchObject({ kind: 'UNAUTHENTICATED', service: 'alerts' });
  });

  it('channel management calls: path, body, answer', async () => {
    const pool = agent.get(ORIGIN);
    const emailChannel = { id: 'ch-1', type: 'EMAIL', value: 'ada@example.com', verified: false, subscribed: false };
    pool.intercept({ path: '/alerts/v2/channel/email/prepare', method: 'POST' }).reply(200, emailChannel, json);
    pool.intercept({ path: '/alerts/v2/channel/email/verify', method: 'POST' }).reply(200, { ...emailChannel, verified: true }, json);
    pool.intercept({ path: '/alerts/v2/channel/email/resend', method: 'POST' }).reply(201, {}, json);
    pool.intercept({ path: '/alerts/v2/channel/email/delete', method: 'POST' }).reply(201, {}, json);
    pool
      .intercept({ path: '/alerts/v2/channel/telegram/prepare', method: 'POST' })
      .reply(200, { id: 'ch-2', type: 'TELEGRAM', value: '', verified: false, subscribed: false, verification: { link: 'https://t.me/bot?start=abc' } }, json);
    pool.intercept({ path: '/alerts/v2/channel/telegram/delete', method: 'POST' }).reply(200, {}, json);
    const { alerts } = upstream();

    const prepared = await alerts.prepareEmailChannel(creds, 'ada@example.com');
    expect(prepared).toMatchObject({ key: 'EMAIL', type: 'EMAIL', verified: false, subscribedApps: [] });
    expect(JSON.parse(call().body!)).toEqual({ email: 'ada@example.com' });

    expect(await alerts.verifyEmailChannel(creds, '123456')).toMatchObject({ verified: true });
    expect(JSON.parse(call().body!)).toEqual({ code: '123456' });

    await alerts.resendEmailVerification(creds);
    expect(call()).toMatchObject({ method: 'POST', path: '/alerts/v2/channel/email/resend' });
    expect(call().body ?? null).toBeNull();
    await alerts.deleteEmailChannel(creds);

    const telegram = await alerts.prepareTelegramChannel(creds);
    expect(telegram).toMatchObject({ channel: { key: 'TELEGRAM', type: 'TELEGRAM' }, verificationLink: 'https://t.me/bot?start=abc' });
    await alerts.deleteTelegramChannel(creds);
    expect(call().headers['authorization']).toBe('Bearer caller-token');
  });

  it('keeps the upstream message of a 409 and a 422', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/alerts/v2/channel/email/prepare', method: 'POST' }).reply(409, { message: 'email channel already exists' }, json);
    pool.intercept({ path: '/alerts/v2/channel/email/verify', method: 'POST' }).reply(422, { message: 'code expired' }, json);
    const { alerts } = upstream();
    await expect(alerts.prepareEmailChannel(creds, 'a@b.c')).rejects.toMatchObject({ kind: 'CONFLICT', upstreamMessage: 'email channel already exists' });
    await expect(alerts.verifyEmailChannel(creds, '000000')).rejects.toMatchObject({ kind: 'UNPROCESSABLE', upstreamMessage: 'code expired' });
  });

  it('push, apps and subscriptions', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/alerts/v2/push/subscribe', method: 'POST' }).reply(202, {}, json);
    pool.intercept({ path: '/alerts/v2/push/unsubscribe', method: 'POST' }).reply(202, {}, json);
    pool.intercept({ path: '/alerts/v2/apps', method: 'GET' }).reply(200, fixture('apps.json'), json);
    pool.intercept({ path: '/alerts/v2/subscribe', method: 'POST' }).reply(201, {}, json);
    pool.intercept({ path: '/alerts/v2/unsubscribe', method: 'POST' }).reply(201, {}, json);
    const { alerts } = upstream();

    await alerts.registerPushDevice(creds, { fcmToken: 'fcm-1', deviceId: 'dev-1' });
    expect(JSON.parse(call().body!)).toEqual({ fcmToken: 'fcm-1', deviceId: 'dev-1' });
    await alerts.unregisterPushDevice(creds, { fcmToken: 'fcm-1' });
    expect(JSON.parse(call().body!)).toEqual({ fcmToken: 'fcm-1' });

    const apps = await alerts.listApps(creds);
    expect(apps).toHaveLength(2);

    await alerts.subscribe(creds, { appIds: ['app-1'], channels: ['EMAIL', 'IN_APP'] });
    expect(JSON.parse(call().body!)).toEqual({ appId: ['app-1'], channel: ['EMAIL', 'IN_APP'] });
    await alerts.unsubscribe(creds);
    expect(JSON.parse(call().body!)).toEqual({});
  });

  it('inbox, summary, read and clear', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: (p) => p.startsWith('/alerts/v2/history?'), method: 'GET' }).reply(200, fixture('history.json'), json);
    pool.intercept({ path: (p) => p.startsWith('/alerts/v2/history/summary'), method: 'GET' }).reply(200, { unreadCount: 4 }, json);
    pool.intercept({ path: '/alerts/v2/history/read', method: 'POST' }).reply(200, {}, json);
    pool.intercept({ path: '/alerts/v2/history/clear', method: 'POST' }).reply(200, {}, json);
    const { alerts } = upstream();

    const page = await alerts.getInbox(creds, { appId: 'app-1', limit: 3, cursor: 'c-1' });
    expect(call().query).toEqual({ appId: 'app-1', limit: '3', cursor: 'c-1' });
    expect(page).toMatchObject({ unreadCount: 2, cursor: 'c-2', limit: 3 });
    expect(await alerts.getInboxSummary(creds, { appId: 'app-1' })).toEqual({ unreadCount: 4, lastReadAt: null });
    expect(call().query).toEqual({ appId: 'app-1' });

    await alerts.markRead(creds, ['app-1', 'app-2']);
    expect(JSON.parse(call().body!)).toEqual({ appId: ['app-1', 'app-2'] });
    await alerts.clearRead(creds);
    expect(JSON.parse(call().body!)).toEqual({});
  });

  it('send carries only the api key and the idempotency key, never the caller token', async () => {
    agent.get(ORIGIN).intercept({ path: '/alerts/v2/6f1c2d3e-1111-4a5b-8c9d-0e1f2a3b4c5d/send', method: 'POST' }).reply(202, {}, json);
    await upstream().alerts.send({ apiKey: 'app-api-key', idempotencyKey: 'idem-1' }, '6f1c2d3e-1111-4a5b-8c9d-0e1f2a3b4c5d', {
      channels: ['PUSH', 'IN_APP'],
      title: 'Hello',
      body: 'World',
      actions: [{ label: 'Open', url: 'https://app.example.com' }],
      recipient: { walletAddresses: ['W1', 'W2'] },
    });
    const { headers, body } = call();
    expect(headers['x-service-api-key']).toBe('app-api-key');
    expect(headers['idempotency-key']).toBe('idem-1');
    expect(headers['authorization']).toBeUndefined();
    expect(headers['x-service-client-key']).toBeUndefined();
    expect(JSON.parse(body!)).toEqual({
      channels: ['PUSH', 'IN_APP'],
      message: { title: 'Hello', body: 'World', actions: [{ type: 'link', label: 'Open', url: 'https://app.example.com' }] },
      recipient: { type: 'subscribers', walletAddresses: ['W1', 'W2'] },
    });
  });

  it('send without an idempotency key leaves the header out; encodes the app id as one segment', async () => {
    agent.get(ORIGIN).intercept({ path: '/alerts/v2/a%2F..%2Fb/send', method: 'POST' }).reply(202, {}, json);
    await upstream().alerts.send({ apiKey: 'k' }, 'a/../b', { channels: ['EMAIL'], title: 't', body: 'b', recipient: { allSubscribers: true } });
    expect(call().headers['idempotency-key']).toBeUndefined();
    expect(JSON.parse(call().body!).recipient).toEqual({ type: 'all-subscribers' });
  });

  it('send: 403 when the key does not own the app', async () => {
    agent.get(ORIGIN).intercept({ path: anyPath, method: 'POST' }).reply(403, { error: 'forbidden' }, json);
    await expect(
      upstream().alerts.send({ apiKey: 'k' }, 'app', { channels: ['EMAIL'], title: 't', body: 'b', recipient: { walletAddress: 'W' } }),
    ).rejects.toMatchObject({ kind: 'FORBIDDEN', status: 403 });
  });

  it('lists subscribers with the api key', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: (p) => p.startsWith('/alerts/v2/app-1/subscribers'), method: 'GET' })
      .reply(200, { subscribers: [{ walletAddress: 'W1' }], offset: 0, limit: 100, count: 1 }, json);
    const page = await upstream().alerts.listSubscribers({ apiKey: 'k' }, 'app-1', { offset: 0, limit: 100 });
    expect(page).toEqual({ walletAddresses: ['W1'], offset: 0, limit: 100, count: 1 });
    expect(call().headers['x-service-api-key']).toBe('k');
    expect(call().query).toEqual({ offset: '0', limit: '100' });
  });
});
