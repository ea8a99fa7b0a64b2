import { describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { createHttpClient } from '../../src/upstream/http.js';
import { createUpstream, type UpstreamConfig } from '../../src/upstream/index.js';
import { createMarketsClient } from '../../src/upstream/markets/client.js';
import { fixture, headersOf, lastCall, ORIGIN, useMockAgent } from './helpers.js';

let agent: MockAgent;
useMockAgent((created) => (agent = created));

const json = { headers: { 'content-type': 'application/json' } };
const anyPath = () => true;
const creds = { authorization: 'Bearer caller-token', clientKey: 'caller-client-key' };

function upstream(overrides: Partial<UpstreamConfig> = {}) {
  return createUpstream({
    alertsUrl: `${ORIGIN}/alerts`,
    marketsUrl: `${ORIGIN}/markets`,
    assetsUrl: `${ORIGIN}/assets`,
    serviceClientKey: 'gateway-key',
    agent,
    breaker: false,
    ...overrides,
  });
}

function call() {
  const c = lastCall(agent);
  const url = new URL(c.fullUrl);
  return { method: c.method, path: c.path, query: Object.fromEntries(url.searchParams), rawQuery: url.search, headers: headersOf(c), body: c.body };
}

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

describe('markets client', () => {
  it('listing: comma lists, URL-encoded JSON filters, the gateway key and no caller token', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/markets?'), method: 'GET' }).reply(200, fixture('markets.json'), json);
    const page = await upstream().markets.listMarkets({
      types: ['LENDING', 'PREDICTION'],
      providers: ['kamino', 'dflow'],
      assets: ['So11111111111111111111111111111111111111112'],
      predictionStatus: ['OPEN', 'SETTLED'],
      cursor: 'abc',
      limit: 100,
    });
    const { path, query, rawQuery, headers } = call();
    expect(path).toBe('/markets/v0/markets');
    expect(query).toEqual({
      type: 'lending,prediction',
      provider: 'kamino,dflow',
      asset: 'So11111111111111111111111111111111111111112',
      cursor: 'abc',
      limit: '100',
      filters: '{"prediction":{"status":["open","settled"]}}',
    });
    expect(rawQuery).toContain('filters=%7B%22prediction%22');
    expect(headers['x-service-client-key']).toBe('gateway-key');
    expect(headers['authorization']).toBeUndefined();
    // The unknown type and the malformed record are left out.
    expect(page.markets.map((m) => m.type)).toEqual(['YIELD', 'LENDING', 'LOOP', 'PERPETUAL', 'REWARD', 'PREDICTION']);
    expect(page.cursor).toBe('eyJvZmZzZXQiOjh9');
  });

  it('listing without parameters sends no query; a null cursor ends the listing', async () => {
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' }).reply(200, { markets: [], cursor: null }, json);
    await expect(upstream().markets.listMarkets()).resolves.toEqual({ markets: [], cursor: null, unreadable: 0, bytes: expect.any(Number) });
  });

  it('a listing whose markets is not a list is UNAVAILABLE', async () => {
    agent.get(ORIGIN).intercept({ path: anyPath, method: 'GET' }).reply(200, { data: [] }, json);
    await expect(upstream().markets.listMarkets()).rejects.toMatchObject({ kind: 'UNAVAILABLE', code: 'EBADBODY' });
  });

  it('market history: ids as a comma list, times as ISO, resolution spelled upstream-style', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/markets/history?'), method: 'GET' }).reply(200, fixture('market-history.json'), json);
    const history = await upstream().markets.getMarketHistory({
      marketIds: ['a.b.c', 'd,e'],
      startTime: new Date('2025-10-08T00:00:00.000Z'),
      resolution: 'ONE_HOUR',
    });
    expect(call().query).toEqual({ marketIds: 'a.b.c,d,e', startTime: '2025-10-08T00:00:00.000Z', resolution: '1h' });
    expect(history[0]?.points).toHaveLength(2);
  });

  it('market history refuses more than 50 ids (a programming error) and calls nothing for none', async () => {
    const ids = Array.from({ length: 51 }, (_, i) => `m${i}`);
    const { markets } = upstream();
    await expect(markets.getMarketHistory({ marketIds: ids, startTime: '2025-10-08T00:00:00Z' })).rejects.toBeInstanceOf(RangeError);
    await expect(markets.getMarketHistory({ marketIds: [], startTime: '2025-10-08T00:00:00Z' })).resolves.toEqual([]);
    await expect(
      markets.getMarketHistory({ marketIds: ['a'], startTime: '2025-10-08T00:00:00Z', resolution: 'FIVE_MINUTES' }),
    ).rejects.toMatchObject({ kind: 'BAD_REQUEST' });
    expect(agent.getCallHistory()?.calls()).toHaveLength(0);
  });

  it('positions: wallets as a comma list, one type, market.status, bundle ids', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/positions/owners?'), method: 'GET' }).reply(200, fixture('positions.json'), json);
    const positions = await upstream().markets.getPositions({
      walletAddresses: ['W1', 'W2'],
      type: 'LENDING',
      marketStatus: 'OPEN',
      bundleIds: ['bundle-1'],
    });
    expect(call().query).toEqual({ walletAddresses: 'W1,W2', type: 'lending', 'market.status': 'open', bundleIds: 'bundle-1' });
    expect(call().headers['x-service-client-key']).toBe('gateway-key');
    expect(positions).toHaveLength(7);
  });

  it('positions: no call for no wallets; more than 25 is a programming error', async () => {
    const { markets } = upstream();
    await expect(markets.getPositions({ walletAddresses: [] })).resolves.toEqual([]);
    await expect(markets.getPositions({ walletAddresses: Array.from({ length: 26 }, (_, i) => `W${i}`) })).rejects.toBeInstanceOf(RangeError);
    expect(agent.getCallHistory()?.calls()).toHaveLength(0);
  });

  it('position history', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/positions/history?'), method: 'GET' }).reply(200, fixture('position-history.json'), json);
    const history = await upstream().markets.getPositionHistory({
      walletAddress: 'W1',
      startTime: '2025-10-08T00:00:00.000Z',
      endTime: '2025-10-09T00:00:00.000Z',
      positionIds: ['pos-lend-deposit', 'pos-yield'],
      resolution: 'ONE_MINUTE',
    });
    expect(call().query).toEqual({
      walletAddress: 'W1',
      startTime: '2025-10-08T00:00:00.000Z',
      endTime: '2025-10-09T00:00:00.000Z',
      positionIds: 'pos-lend-deposit,pos-yield',
      resolution: '1m',
    });
    expect(history.map((h) => h.positionId)).toEqual(['pos-lend-deposit', 'pos-yield']);
  });

  it('without a configured client key, sends none', async () => {
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' }).reply(200, { markets: [], cursor: null }, json);
    const markets = createMarketsClient(createHttpClient({ service: 'markets', baseUrl: `${ORIGIN}/markets`, agent, breaker: false }));
    await markets.listMarkets();
    expect(call().headers['x-service-client-key']).toBeUndefined();
  });
});

describe('assets client', () => {
  const SOL = 'solana:So11111111111111111111111111111111111111112';

  it('gets an asset: the whole id is one encoded path segment; the gateway key, no caller token', async () => {
    agent.get(ORIGIN).intercept({ path: `/assets/v0/assets/${encodeURIComponent(SOL)}`, method: 'GET' }).reply(200, fixture('asset.json'), json);
    const asset = await upstream().assets.getAsset(SOL);
    expect(asset).toMatchObject({ assetId: SOL, symbol: 'SOL' });
    expect(call().path).toBe('/assets/v0/assets/solana%3ASo11111111111111111111111111111111111111112');
    expect(call().headers['x-service-client-key']).toBe('gateway-key');
    expect(call().headers['authorization']).toBeUndefined();
  });

  it('an unknown asset is null', async () => {
    agent.get(ORIGIN).intercept({ path: anyPath, method: 'GET' }).reply(404, { error: 'not found' }, json);
    await expect(upstream().assets.getAsset('stock:NOPE')).resolves.toBeNull();
  });

  it.each(['solana', 'Solana:abc', 'solana:../x', 'solana:a..b', 'solana:.hidden', 'solana:a/b', 'solana:a?b', 'solana:a%2Fb', ':abc', 'solana:'])(
    'refuses the invalid id %j without a call',
    async (id) => {
      const { assets } = upstream();
      await expect(assets.getAsset(id)).rejects.toMatchObject({ kind: 'BAD_REQUEST', service: 'assets' });
      await expect(assets.getPriceHistory(id, { from: '2025-10-08T00:00:00Z' })).rejects.toMatchObject({ kind: 'BAD_REQUEST' });
      expect(agent.getCallHistory()?.calls()).toHaveLength(0);
    },
  );

  it('search: q, limit, cursor and types', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/assets/v0/search?'), method: 'GET' }).reply(200, fixture('search.json'), json);
    const page = await upstream().assets.searchAssets({ query: 'usd & co', limit: 5, cursor: 'c1', types: ['TOKEN', 'STOCK', 'UNKNOWN'] });
    expect(call().query).toEqual({ q: 'usd & co', limit: '5', cursor: 'c1', type: 'token,stock' });
    expect(call().rawQuery).toContain('q=usd+%26+co');
    expect(page.results).toHaveLength(3);
    expect(page.cursor).toBeNull();
  });

  it('price history', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: (p) => p.startsWith(`/assets/v0/assets/${encodeURIComponent(SOL)}/history?`), method: 'GET' })
      .reply(200, fixture('asset-history.json'), json);
    const history = await upstream().assets.getPriceHistory(SOL, { from: new Date('2025-10-10T00:00:00.000Z'), resolution: 'FIVE_MINUTES' });
    expect(call().query).toEqual({ from: '2025-10-10T00:00:00.000Z', resolution: '5m' });
    expect(history).toEqual({
      assetId: SOL,
      resolution: '1h',
      points: [
        { timestamp: '2025-10-10T10:00:00.000Z', priceUsd: 150.1 },
        { timestamp: '2025-10-10T11:00:00.000Z', priceUsd: 151.7 },
      ],
    });
  });

  it('the fallback service is a separate client with its own base URL', async () => {
    agent.get('http://fallback.test').intercept({ path: `/v0/assets/${encodeURIComponent(SOL)}`, method: 'GET' }).reply(200, fixture('asset.json'), json);
    const up = createUpstream({
      alertsUrl: `${ORIGIN}/alerts`,
      marketsUrl: `${ORIGIN}/markets`,
      assetsUrl: `${ORIGIN}/assets`,
      assetsFallbackUrl: 'http://fallback.test',
      serviceClientKey: 'gateway-key',
      agent,
      breaker: false,
    });
    await expect(up.assetsFallback?.getAsset(SOL)).resolves.toMatchObject({ symbol: 'SOL' });
    expect(upstream().assetsFallback).toBeNull();
    await up.close();
  });
});

describe('createUpstream', () => {
  it('builds its own agent when none is given and closes it', async () => {
    const url = 'http://127.0.0.1:1';
    // Without breakers, whose shutdown would refuse the call before it reached the agent.
    const up = createUpstream({ alertsUrl: url, marketsUrl: url, assetsUrl: url, timeoutMs: 500, breaker: false });
    await expect(up.close()).resolves.toBeUndefined();
    // An open agent would try the port (ECONNREFUSED); a closed one refuses the call itself.
    await expect(up.markets.listMarkets()).rejects.toMatchObject({ kind: 'UNAVAILABLE', code: 'UND_ERR_DESTROYED' });
  });

  it('leaves a given agent open on close', async () => {
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' }).reply(200, { markets: [], cursor: null }, json);
    const up = upstream();
    await up.close();
    await expect(up.markets.listMarkets()).resolves.toEqual({ markets: [], cursor: null, unreadable: 0, bytes: expect.any(Number) });
  });

  it('reports each call to onRequest with a route template, never ids or headers', async () => {
    const infos: unknown[] = [];
    agent.get(ORIGIN).intercept({ path: anyPath, method: 'GET' }).reply(200, fixture('asset.json'), json);
    const up = upstream({ onRequest: (info) => infos.push(info) });
    await up.assets.getAsset('solana:So11111111111111111111111111111111111111112');
    expect(infos).toEqual([
      expect.objectContaining({ service: 'assets', method: 'GET', route: 'GET /v0/assets/{id}', status: 200, attempts: 1 }),
    ]);
    expect(JSON.stringify(infos)).not.toMatch(/gateway-key|So111/);
    await up.close();
  });
});

