import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { createAlertsState, type DemoCredentials } from '../../src/simulator/alerts/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let sim: Simulator;
let demo: DemoCredentials;

interface Answer {
  status: number;
  text: string;
   
  json: any;
}

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const res = await fetch(`${sim.urls.alerts}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

const subHeaders = (token = demo.token, clientKey = demo.clientKey): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'x-service-client-key': clientKey,
});
const asDemo = (method: string, path: string, body?: unknown) => call(method, path, subHeaders(), body);
const asSub = (wallet: string, method: string, path: string, body?: unknown) =>
  call(method, path, subHeaders(sim.alerts.subscribers.get(wallet)!.token), body);
const appHeaders = (apiKey = demo.apiKey, extra: Record<string, string> = {}) => ({ 'x-service-api-key': apiKey, ...extra });
const send = (body: unknown, extra: Record<string, string> = {}, appId = demo.appId, apiKey = demo.apiKey) =>
  call('POST', `/v2/${appId}/send`, appHeaders(apiKey, extra), body);

function validSend(overrides: Record<string, unknown> = {}, message: Record<string, unknown> = {}) {
  return {
    channels: ['IN_APP'],
    message: { title: 'Hello', body: 'World', ...message },
    recipient: { type: 'subscriber', walletAddress: demo.walletAddress },
    ...overrides,
  };
}

async function allHistory(path = '/v2/history', limit = 7) {
  const ids: string[] = [];
  const timestamps: string[] = [];
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await asDemo('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status).toBe(200);
    expect(r.json.limit).toBe(limit);
    expect(r.json.alerts.length).toBeLessThanOrEqual(limit);
    for (const a of r.json.alerts) {
      ids.push(a.id);
      timestamps.push(a.timestamp);
    }
    cursor = r.json.cursor;
    pages++;
    if (pages > 100) throw new Error('paging does not end');
  } while (cursor);
  return { ids, timestamps, pages };
}

beforeAll(async () => {
  sim = await startSimulator({ seed: 1234 });
  demo = sim.alerts.demo;
});

afterAll(async () => {
  await sim?.close();
});

beforeEach(() => {
  sim.alerts.reset();
});

describe('generated data', () => {
  it('is deterministic from the seed and uses the given wallets', () => {
    const wallets = sim.world.wallets.map((w) => w.address);
    const a = createAlertsState(99, wallets, { anchorMs: Date.UTC(2025, 9, 20) });
    const b = createAlertsState(99, wallets, { anchorMs: Date.UTC(2025, 9, 20) });
    expect(a.demo).toEqual(b.demo);
    expect([...a.subscribers.values()].map((s) => s.inbox.map((x) => x.id))).toEqual(
      [...b.subscribers.values()].map((s) => s.inbox.map((x) => x.id)),
    );
    const c = createAlertsState(100, wallets, { anchorMs: Date.UTC(2025, 9, 20) });
    expect(c.demo.token).not.toBe(a.demo.token);
    expect(a.subscribers.size).toBeGreaterThanOrEqual(50);
    for (const w of a.subscribers.keys()) expect(wallets).toContain(w);
  });

  it('has apps with UUIDs and distinct api keys, client keys and a rich demo subscriber', () => {
    const st = sim.alerts;
    expect(st.apps.length).toBeGreaterThanOrEqual(8);
    expect(new Set(st.apps.map((a) => a.apiKey)).size).toBe(st.apps.length);
    for (const app of st.apps) expect(app.id).toMatch(UUID);
    expect(st.clientKeys).toContain('demo-client-key');
    expect(demo.clientKey).toBe('demo-client-key');
    expect(st.appByApiKey(demo.apiKey)?.id).toBe(demo.appId);
    const d = st.subscribers.get(demo.walletAddress)!;
    expect(d.token).toBe(demo.token);
    expect(d.token.split('.')).toHaveLength(3);
    expect(d.inbox.length).toBeGreaterThan(45);
    expect(d.channels.get('EMAIL')?.type).toBe('EMAIL');
    expect(d.channels.get('TELEGRAM')?.type).toBe('EMAIL');
    const subs = [...st.subscribers.values()];
    expect(subs.filter((s) => s.inbox.length > 45).length).toBeGreaterThan(3);
    expect(subs.some((s) => s.channels.get('DISCORD')?.type === 'DISCORD')).toBe(true);
    expect(subs.some((s) => s.channels.get('TELEGRAM')?.type === 'TELEGRAM')).toBe(true);
    expect(subs.some((s) => s.inbox.some((a) => a.actions?.some((x) => x.context)))).toBe(true);
    expect(subs.some((s) => s.inbox.some((a) => a.image))).toBe(true);
    expect(subs.some((s) => s.inbox.some((a) => a.data))).toBe(true);
  });

  it('lists some channels without subscribedApps and one unknown channel type', async () => {
    let missing = 0;
    let unknown = 0;
    for (const s of sim.alerts.subscribers.values()) {
      const r = await call('GET', '/v2/channels', subHeaders(s.token));
      expect(r.status).toBe(200);
      for (const [key, ch] of Object.entries<Record<string, unknown>>(r.json)) {
        if (!('subscribedApps' in ch)) missing++;
        if (key === 'DISCORD' && ch['type'] === 'DISCORD') unknown++;
      }
    }
    expect(missing).toBeGreaterThan(0);
    expect(unknown).toBeGreaterThan(0);
  });

  it('reset() restores the initial data', async () => {
    const before = sim.alerts.subscribers.get(demo.walletAddress)!.inbox.length;
    await asDemo('POST', '/v2/history/read', {});
    await asDemo('POST', '/v2/history/clear', {});
    await asDemo('POST', '/v2/channel/email/delete');
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.inbox.length).toBeLessThan(before);
    sim.alerts.reset();
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.inbox.length).toBe(before);
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.channels.has('EMAIL')).toBe(true);
    expect(sim.alerts.deliveries).toHaveLength(0);
  });
});

describe('subscriber authentication', () => {
  const endpoints: [string, string][] = [
    ['GET', '/v2/auth'],
    ['GET', '/v2/channels'],
    ['POST', '/v2/channel/email/prepare'],
    ['POST', '/v2/channel/email/verify'],
    ['POST', '/v2/channel/email/resend'],
    ['POST', '/v2/channel/email/delete'],
    ['POST', '/v2/channel/telegram/prepare'],
    ['POST', '/v2/channel/telegram/delete'],
    ['POST', '/v2/push/subscribe'],
    ['POST', '/v2/push/unsubscribe'],
    ['GET', '/v2/apps'],
    ['POST', '/v2/subscribe'],
    ['POST', '/v2/unsubscribe'],
    ['GET', '/v2/history'],
    ['GET', '/v2/history/summary'],
    ['POST', '/v2/history/read'],
    ['POST', '/v2/history/clear'],
  ];

  it('GET /v2/auth answers the wallet of the token', async () => {
    const r = await asDemo('GET', '/v2/auth');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ walletAddress: demo.walletAddress });
    const other = [...sim.alerts.subscribers.values()][5]!;
    const r2 = await call('GET', '/v2/auth', subHeaders(other.token, sim.alerts.clientKeys[1]));
    expect(r2.json).toEqual({ walletAddress: other.walletAddress });
  });

  it.each(endpoints)('%s %s: 401 without a token, with a bad token, without or with a bad client key', async (method, path) => {
    const noToken = await call(method, path, { 'x-service-client-key': demo.clientKey });
    const badToken = await call(method, path, subHeaders(`${demo.token}x`));
    const notBearer = await call(method, path, { authorization: demo.token, 'x-service-client-key': demo.clientKey });
    const noClient = await call(method, path, { authorization: `Bearer ${demo.token}` });
    const badClient = await call(method, path, subHeaders(demo.token, 'nope'));
    for (const r of [noToken, badToken, notBearer, noClient, badClient]) {
      expect(r.status).toBe(401);
      if (r.text) expect(typeof r.json.error).toBe('string');
    }
  });
});

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

describe('apps and subscriptions', () => {
  it('lists apps with topics and subscribed flags', async () => {
    const r = await asDemo('GET', '/v2/apps');
    expect(r.status).toBe(200);
    expect(r.json.apps.length).toBe(sim.alerts.apps.length);
    const d = sim.alerts.subscribers.get(demo.walletAddress)!;
    for (const app of r.json.apps) {
      expect(app.id).toMatch(UUID);
      expect(typeof app.name).toBe('string');
      expect(app.subscribed).toBe((d.apps.get(app.id)?.size ?? 0) > 0);
      for (const t of app.topics ?? []) {
        expect(t).toMatchObject({ id: expect.any(String), name: expect.any(String), slug: expect.any(String), subscribed: expect.any(Boolean) });
      }
    }
    expect(r.json.apps.find((a: { id: string }) => a.id === demo.appId).subscribed).toBe(true);
    expect(r.json.apps.some((a: { topics?: unknown }) => a.topics === undefined)).toBe(true);
    expect(r.json.apps.some((a: { topics?: { subscribed: boolean }[] }) => a.topics?.some((t) => t.subscribed))).toBe(true);
  });

  it('subscribes and unsubscribes (201 {}), visible in apps and channels', async () => {
    const apps = (await asDemo('GET', '/v2/apps')).json.apps as { id: string; subscribed: boolean }[];
    const target = apps.find((a) => !a.subscribed)!;
    const r = await asDemo('POST', '/v2/subscribe', { appId: target.id, channel: 'EMAIL' });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({});
    const after = (await asDemo('GET', '/v2/apps')).json.apps as { id: string; subscribed: boolean }[];
    expect(after.find((a) => a.id === target.id)!.subscribed).toBe(true);
    const ch = (await asDemo('GET', '/v2/channels')).json;
    expect(ch.EMAIL.subscribedApps.map((a: { id: string }) => a.id)).toContain(target.id);

    const un = await asDemo('POST', '/v2/unsubscribe', { appId: [target.id], channel: ['EMAIL', 'IN_APP'] });
    expect(un.status).toBe(201);
    const final = (await asDemo('GET', '/v2/apps')).json.apps as { id: string; subscribed: boolean }[];
    expect(final.find((a) => a.id === target.id)!.subscribed).toBe(false);
    expect((await asDemo('GET', '/v2/channels')).json.EMAIL.subscribedApps.map((a: { id: string }) => a.id)).not.toContain(target.id);
  });

  it('omitted channel means all; omitted appId means every app', async () => {
    expect((await asDemo('POST', '/v2/unsubscribe', {})).status).toBe(201);
    let apps = (await asDemo('GET', '/v2/apps')).json.apps as { subscribed: boolean }[];
    expect(apps.every((a) => !a.subscribed)).toBe(true);
    expect((await asDemo('POST', '/v2/subscribe', { appId: demo.appId })).status).toBe(201);
    const set = sim.alerts.subscribers.get(demo.walletAddress)!.apps.get(demo.appId)!;
    expect([...set].sort()).toEqual(['EMAIL', 'IN_APP', 'TELEGRAM']);
    apps = (await asDemo('GET', '/v2/apps')).json.apps;
    expect(apps.filter((a) => a.subscribed)).toHaveLength(1);
  });

  it('answers 422 {message} for an unknown app or a bad channel', async () => {
    for (const body of [
      { appId: '00000000-0000-4000-8000-000000000000' },
      { appId: 'not-a-uuid' },
      { appId: [demo.appId, '00000000-0000-4000-8000-000000000000'] },
      { appId: demo.appId, channel: 'PUSH' },
      { appId: demo.appId, channel: ['IN_APP', 'SMS'] },
    ]) {
      for (const path of ['/v2/subscribe', '/v2/unsubscribe']) {
        const r = await asDemo('POST', path, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(422);
        expect(typeof r.json.message).toBe('string');
      }
    }
  });
});

describe('inbox', () => {
  it('answers a page of the unified inbox with summary, limit and cursor', async () => {
    const r = await asDemo('GET', '/v2/history');
    expect(r.status).toBe(200);
    expect(r.json.limit).toBe(10);
    expect(r.json.alerts).toHaveLength(10);
    expect(typeof r.json.cursor).toBe('string');
    expect(typeof r.json.summary.unreadCount).toBe('number');
    const a = r.json.alerts[0];
    expect(a).toMatchObject({ id: expect.any(String), timestamp: expect.any(String), title: expect.any(String), body: expect.any(String) });
    expect(new Date(a.timestamp).toISOString()).toBe(a.timestamp);
    expect(a.app).toMatchObject({ id: expect.stringMatching(UUID), name: expect.any(String) });
    expect(typeof a.read).toBe('boolean');
    expect((await asDemo('GET', '/v2/history?limit=20')).json.alerts).toHaveLength(20);
    expect((await asDemo('GET', '/v2/history?limit=1')).json.alerts).toHaveLength(1);
  });

  it.each(['0', '21', '-1', 'abc', '1.5'])('rejects limit=%s with 400', async (limit) => {
    const r = await asDemo('GET', `/v2/history?limit=${limit}`);
    expect(r.status).toBe(400);
    expect(r.json.error).toBeDefined();
  });

  it('rejects a bad cursor and a bad appId with 400', async () => {
    expect((await asDemo('GET', '/v2/history?cursor=garbage')).status).toBe(400);
    expect((await asDemo('GET', '/v2/history?appId=nope')).status).toBe(400);
    expect((await asDemo('GET', '/v2/history/summary?appId=nope')).status).toBe(400);
  });

  it('pages to the end newest first with no duplicates', async () => {
    const d = sim.alerts.subscribers.get(demo.walletAddress)!;
    const subscribed = new Set([...d.apps].filter(([, s]) => s.size > 0).map(([id]) => id));
    const expected = d.inbox.filter((a) => subscribed.has(a.appId)).length;
    expect(expected).toBeGreaterThan(45);
    const { ids, timestamps, pages } = await allHistory();
    expect(ids).toHaveLength(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBe(Math.ceil(expected / 7));
    expect([...timestamps].sort().reverse()).toEqual(timestamps);
  });

  it('filters by appId', async () => {
    const d = sim.alerts.subscribers.get(demo.walletAddress)!;
    const expected = d.inbox.filter((a) => a.appId === demo.appId).length;
    const { ids } = await allHistory(`/v2/history?appId=${demo.appId}`, 20);
    expect(ids).toHaveLength(expected);
    const r = await asDemo('GET', `/v2/history?appId=${demo.appId}&limit=20`);
    for (const a of r.json.alerts) expect(a.app.id).toBe(demo.appId);
  });

  it('read and clear change unreadCount and the listing', async () => {
    const s0 = await asDemo('GET', '/v2/history/summary');
    expect(s0.status).toBe(200);
    expect(s0.json.unreadCount).toBeGreaterThan(0);
    expect((await asDemo('GET', '/v2/history')).json.summary).toEqual(s0.json);

    const perApp = (await asDemo('GET', `/v2/history/summary?appId=${demo.appId}`)).json.unreadCount as number;
    expect(perApp).toBeGreaterThan(0);
    const read1 = await asDemo('POST', '/v2/history/read', { appId: demo.appId });
    expect(read1.status).toBe(200);
    expect(read1.json).toEqual({});
    const s1 = (await asDemo('GET', `/v2/history/summary?appId=${demo.appId}`)).json;
    expect(s1.unreadCount).toBe(0);
    expect(typeof s1.lastRead.timestamp).toBe('string');
    expect((await asDemo('GET', '/v2/history/summary')).json.unreadCount).toBe(s0.json.unreadCount - perApp);

    const beforeClear = (await allHistory()).ids.length;
    const clear1 = await asDemo('POST', '/v2/history/clear', { appId: [demo.appId] });
    expect(clear1.status).toBe(200);
    expect(clear1.json).toEqual({});
    expect((await allHistory(`/v2/history?appId=${demo.appId}`)).ids).toHaveLength(0);
    const afterClear = (await allHistory()).ids.length;
    expect(afterClear).toBeLessThan(beforeClear);

    expect((await asDemo('POST', '/v2/history/read')).status).toBe(200);
    expect((await asDemo('GET', '/v2/history/summary')).json.unreadCount).toBe(0);
    expect((await asDemo('POST', '/v2/history/clear', {})).status).toBe(200);
    const empty = await asDemo('GET', '/v2/history');
    expect(empty.json.alerts).toHaveLength(0);
    expect(empty.json.cursor ?? null).toBeNull();

    expect((await asDemo('POST', '/v2/history/read', { appId: 'x' })).status).toBe(400);
    expect((await asDemo('POST', '/v2/history/clear', { appId: ['x'] })).status).toBe(400);
  });

  it('route ordering: /v2/history/summary is not /v2/:appId/subscribers', async () => {
    const r = await asDemo('GET', '/v2/history/summary');
    expect(r.status).toBe(200);
    expect(r.json).not.toHaveProperty('subscribers');
  });
});

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

describe('app subscribers', () => {
  it('pages the subscribers of the app with offset and limit', async () => {
    const expected = [...sim.alerts.subscribers.values()].filter((s) => (s.apps.get(demo.appId)?.size ?? 0) > 0).map((s) => s.walletAddress);
    const r = await call('GET', `/v2/${demo.appId}/subscribers`, appHeaders());
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ offset: 0, limit: 100, count: expected.length });
    expect(r.json.subscribers.map((s: { walletAddress: string }) => s.walletAddress)).toEqual(expected.slice(0, 100));
    expect(r.json.subscribers.map((s: { walletAddress: string }) => s.walletAddress)).toContain(demo.walletAddress);

    const page = await call('GET', `/v2/${demo.appId}/subscribers?offset=2&limit=3`, appHeaders());
    expect(page.json).toMatchObject({ offset: 2, limit: 3, count: expected.length });
    expect(page.json.subscribers.map((s: { walletAddress: string }) => s.walletAddress)).toEqual(expected.slice(2, 5));

    expect((await call('GET', `/v2/${demo.appId}/subscribers?limit=1000`, appHeaders())).status).toBe(200);
    expect((await call('GET', `/v2/${demo.appId}/subscribers?limit=1001`, appHeaders())).status).toBe(400);
    expect((await call('GET', `/v2/${demo.appId}/subscribers?limit=0`, appHeaders())).status).toBe(400);
    expect((await call('GET', `/v2/${demo.appId}/subscribers?offset=-1`, appHeaders())).status).toBe(400);
  });

  it('reflects a new subscription', async () => {
    const before = (await call('GET', `/v2/${demo.appId}/subscribers`, appHeaders())).json.count as number;
    const outsider = [...sim.alerts.subscribers.values()].find((s) => !s.apps.has(demo.appId))!;
    expect((await asSub(outsider.walletAddress, 'POST', '/v2/subscribe', { appId: demo.appId, channel: 'IN_APP' })).status).toBe(201);
    expect((await call('GET', `/v2/${demo.appId}/subscribers`, appHeaders())).json.count).toBe(before + 1);
  });
});
