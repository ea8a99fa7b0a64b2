import { describe, expect, it } from 'vitest';
import { sim, demo, call, subHeaders, asDemo, appHeaders, send, validSend, useAlertsSimulator } from '../helpers/alerts-simulator.js';

useAlertsSimulator();

describe('sending', () => {
  it('accepts a valid send with 202 {} and records a delivery', async () => {
    const r = await send(validSend({ channels: ['PUSH', 'EMAIL'], push: { showNotification: true }, topicId: null }));
    expect(r.status).toBe(202);
    expect(r.json).toEqual({});
    expect(sim.alerts.deliveries).toHaveLength(1);
    expect(sim.alerts.deliveries[0]).toMatchObject({ appId: demo.appId, recipients: 1, channels: ['PUSH', 'EMAIL'], inboxed: 0 });
  });

  it('puts an IN_APP send into the recipient inbox', async () => {
    const before = (await asDemo('GET', '/v2/history/summary')).json.unreadCount as number;
    const app = sim.alerts.appById(demo.appId)!;
    const body = validSend(
      { data: { market_id: 'kamino.lend.x', 'key-2': 'v' }, topicId: app.topics![0]!.id },
      { title: 'Fresh alert', image: 'https://cdn.example/x.webp', actions: [{ type: 'link', label: 'Open', url: 'https://example.com/a' }] },
    );
    expect((await send(body)).status).toBe(202);
    const r = await asDemo('GET', '/v2/history?limit=1');
    expect(r.json.alerts[0]).toMatchObject({
      title: 'Fresh alert',
      body: 'World',
      image: 'https://cdn.example/x.webp',
      actions: [{ type: 'link', label: 'Open', url: 'https://example.com/a' }],
      data: { market_id: 'kamino.lend.x', 'key-2': 'v' },
      topic: { id: app.topics![0]!.id, name: app.topics![0]!.name, slug: app.topics![0]!.slug },
      app: { id: demo.appId, name: app.name },
      read: false,
    });
    expect(r.json.summary.unreadCount).toBe(before + 1);
    expect(sim.alerts.deliveries[0]!.inboxed).toBe(1);
  });

  it('all-subscribers reaches every IN_APP subscriber of the app', async () => {
    const subs = [...sim.alerts.subscribers.values()];
    const inApp = subs.filter((s) => s.apps.get(demo.appId)?.has('IN_APP'));
    const any = subs.filter((s) => (s.apps.get(demo.appId)?.size ?? 0) > 0);
    expect((await send(validSend({ recipient: { type: 'all-subscribers' } }))).status).toBe(202);
    expect(sim.alerts.deliveries[0]).toMatchObject({ recipientType: 'all-subscribers', recipients: any.length, inboxed: inApp.length });
    for (const s of inApp) expect(s.inbox.some((a) => a.title === 'Hello' && a.appId === demo.appId)).toBe(true);
  });

  it('authenticates with the api key: 401 missing or bad, 403 for another app', async () => {
    const other = sim.alerts.apps[1]!;
    const body = validSend();
    expect((await call('POST', `/v2/${demo.appId}/send`, {}, body)).status).toBe(401);
    expect((await send(body, {}, demo.appId, 'bad-key')).status).toBe(401);
    expect((await send(body, {}, other.id, demo.apiKey)).status).toBe(403);
    expect((await send(body, {}, other.id, other.apiKey)).status).toBe(202);
    expect((await call('GET', `/v2/${demo.appId}/subscribers`)).status).toBe(401);
    expect((await call('GET', `/v2/${demo.appId}/subscribers`, appHeaders('bad'))).status).toBe(401);
    expect((await call('GET', `/v2/${other.id}/subscribers`, appHeaders())).status).toBe(403);
    // A subscriber token is not an api key.
    expect((await call('POST', `/v2/${demo.appId}/send`, subHeaders(), body)).status).toBe(401);
  });

  const long = (n: number, c = 'a') => c.repeat(n);
  const okCases: [string, () => unknown][] = [
    ['title of 60', () => validSend({}, { title: long(60) })],
    ['title of 60 emoji', () => validSend({}, { title: long(60, '🚀') })],
    ['body of 500', () => validSend({}, { body: long(500) })],
    ['3 actions', () => validSend({}, { actions: [1, 2, 3].map((i) => ({ type: 'link', label: long(30), url: `https://x.io/${i}` })) })],
    ['image of 300', () => validSend({}, { image: `https://cdn.x.io/${long(279)}.png` })],
    ['image webp', () => validSend({}, { image: 'https://cdn.x.io/a.webp' })],
    ['action url of 300', () => validSend({}, { actions: [{ type: 'link', label: 'go', url: `https://x.io/${long(287)}` }] })],
    ['image with a query', () => validSend({}, { image: 'https://cdn.x.io/a.JPG?v=2' })],
    ['data key of 64', () => validSend({ data: { [long(64)]: long(500) } })],
    ['all channels', () => validSend({ channels: ['PUSH', 'IN_APP', 'EMAIL', 'TELEGRAM'] })],
    ['null optionals', () => validSend({ topicId: null, data: null, push: null }, { image: null, actions: null })],
  ];
  it.each(okCases)('accepts %s', async (_name, body) => {
    const r = await send(body());
    expect(r.status, r.text).toBe(202);
  });

  const badCases: [string, () => unknown][] = [
    ['no body', () => undefined],
    ['array body', () => []],
    ['title of 61', () => validSend({}, { title: long(61) })],
    ['empty title', () => validSend({}, { title: '' })],
    ['missing title', () => ({ ...validSend(), message: { body: 'x' } })],
    ['body of 501', () => validSend({}, { body: long(501) })],
    ['empty body', () => validSend({}, { body: '' })],
    ['missing message', () => ({ channels: ['IN_APP'], recipient: { type: 'all-subscribers' } })],
    ['no channels', () => validSend({ channels: [] })],
    ['missing channels', () => ({ message: { title: 'a', body: 'b' }, recipient: { type: 'all-subscribers' } })],
    ['unknown channel', () => validSend({ channels: ['IN_APP', 'SMS'] })],
    ['repeated channel', () => validSend({ channels: ['IN_APP', 'IN_APP'] })],
    ['image gif', () => validSend({}, { image: 'https://cdn.x.io/a.gif' })],
    ['image not a URL', () => validSend({}, { image: 'a.png' })],
    ['image of 301', () => validSend({}, { image: `https://cdn.x.io/${long(280)}.png` })],
    ['4 actions', () => validSend({}, { actions: [1, 2, 3, 4].map((i) => ({ type: 'link', label: 'go', url: `https://x.io/${i}` })) })],
    ['action type', () => validSend({}, { actions: [{ type: 'button', label: 'go', url: 'https://x.io' }] })],
    ['action label of 31', () => validSend({}, { actions: [{ type: 'link', label: long(31), url: 'https://x.io' }] })],
    ['action empty label', () => validSend({}, { actions: [{ type: 'link', label: '', url: 'https://x.io' }] })],
    ['action url of 301', () => validSend({}, { actions: [{ type: 'link', label: 'go', url: `https://x.io/${long(288)}` }] })],
    ['action bad url', () => validSend({}, { actions: [{ type: 'link', label: 'go', url: 'nope' }] })],
    ['data key with a space', () => validSend({ data: { 'a b': 'x' } })],
    ['data key of 65', () => validSend({ data: { [long(65)]: 'x' } })],
    ['data key with a dot', () => validSend({ data: { 'a.b': 'x' } })],
    ['empty data value', () => validSend({ data: { a: '' } })],
    ['data value of 501', () => validSend({ data: { a: long(501) } })],
    ['data value not a string', () => validSend({ data: { a: 1 } })],
    ['data as a list', () => validSend({ data: ['x'] })],
    ['unknown topic', () => validSend({ topicId: '00000000-0000-4000-8000-000000000000' })],
    ['push flag not boolean', () => validSend({ push: { showNotification: 'yes' } })],
    ['missing recipient', () => ({ channels: ['IN_APP'], message: { title: 'a', body: 'b' } })],
    ['unknown recipient type', () => validSend({ recipient: { type: 'everyone' } })],
    ['subscriber without address', () => validSend({ recipient: { type: 'subscriber' } })],
    ['empty walletAddresses', () => validSend({ recipient: { type: 'subscribers', walletAddresses: [] } })],
    ['walletAddresses with a number', () => validSend({ recipient: { type: 'subscribers', walletAddresses: ['a', 2] } })],
  ];
  it.each(badCases)('refuses %s with 400 {error}', async (_name, body) => {
    const r = await send(body());
    expect(r.status, r.text).toBe(400);
    expect(r.json.error).toBeDefined();
    expect(sim.alerts.deliveries).toHaveLength(0);
  });

  it('accepts 10,000 recipients and refuses 10,001', async () => {
    const wallets = Array.from({ length: 10_001 }, (_, i) => `Wallet${String(i).padStart(38, '0')}`);
    wallets[0] = demo.walletAddress;
    const ok = await send(validSend({ recipient: { type: 'subscribers', walletAddresses: wallets.slice(0, 10_000) } }));
    expect(ok.status).toBe(202);
    expect(sim.alerts.deliveries[0]).toMatchObject({ recipients: 10_000, inboxed: 1 });
    const bad = await send(validSend({ recipient: { type: 'subscribers', walletAddresses: wallets } }));
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBeDefined();
    expect(sim.alerts.deliveries).toHaveLength(1);
  });

  it('is idempotent per Idempotency-Key: once per body, 422 for another body, scoped per app', async () => {
    const key = { 'idempotency-key': 'abc-123' };
    const body = validSend({}, { title: 'Once' });
    expect((await send(body, key)).status).toBe(202);
    // Same body, other key order: still the same body.
    const reordered = { recipient: body.recipient, message: { body: 'World', title: 'Once' }, channels: ['IN_APP'] };
    const again = await send(reordered, key);
    expect(again.status).toBe(202);
    expect(again.json).toEqual({});
    expect(sim.alerts.deliveries).toHaveLength(1);
    expect(sim.alerts.deliveries[0]!.idempotencyKey).toBe('abc-123');
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.inbox.filter((a) => a.title === 'Once')).toHaveLength(1);

    const different = await send(validSend({}, { title: 'Twice' }), key);
    expect(different.status).toBe(422);
    expect(typeof different.json.message).toBe('string');
    expect(sim.alerts.deliveries).toHaveLength(1);

    const other = sim.alerts.apps[1]!;
    expect((await send(validSend({}, { title: 'Twice' }), key, other.id, other.apiKey)).status).toBe(202);
    expect(sim.alerts.deliveries).toHaveLength(2);

    // After 24 h the key is free again.
    const t0 = Date.now();
    sim.alerts.setClock(() => t0 + 24 * 3_600_000 + 1);
    expect((await send(validSend({}, { title: 'Twice' }), key)).status).toBe(202);
    expect(sim.alerts.deliveries).toHaveLength(3);
  });

  it('an invalid body under a key does not reserve it', async () => {
    const key = { 'idempotency-key': 'k-2' };
    expect((await send(validSend({}, { title: '' }), key)).status).toBe(400);
    expect((await send(validSend(), key)).status).toBe(202);
    expect(sim.alerts.deliveries).toHaveLength(1);
  });
});
