import { beforeAll, describe, expect, it } from 'vitest';
import type { SubscriberRecord } from '../../src/simulator/alerts/index.js';
import { operation, useTestGateway } from '../helpers/gateway.js';

const GATEWAY_KEY = 'gateway-own-client-key';

const gw = useTestGateway({ config: { serviceClientKey: GATEWAY_KEY }, resetControls: true });
let me: SubscriberRecord;
let other: SubscriberRecord;
let otherHeaders: Record<string, string>;

beforeAll(() => {
  me = gw.sim.alerts.subscribers.get(gw.sim.alerts.demo.walletAddress)!;
  // Another subscriber with a different inbox and channels, signing in with another client key.
  other = [...gw.sim.alerts.subscribers.values()].find((s) => s !== me && s.inbox.length > 10 && s.channels.size > 0)!;
  otherHeaders = { authorization: `Bearer ${other.token}`, 'x-service-client-key': gw.sim.alerts.clientKeys[1]! };
});

const alertsCalls = () => gw.sim.controls.count('alerts');

const VIEWER = /* GraphQL */ `{
  viewer {
    walletAddress
    wallet { address }
    channels { key value }
    inbox(first: 20) { edges { node { notificationId } } }
  }
}`;

describe('without valid credentials', () => {
  it('answers viewer null with UNAUTHENTICATED and calls nothing when no token is sent', async () => {
    const res = await gw.execute(operation('ViewerInbox'), {});
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ viewer: null });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ path: ['viewer'], extensions: { code: 'UNAUTHENTICATED' } });
    expect(alertsCalls()).toBe(0);
  });

  it('does not take a client key alone for a token', async () => {
    const res = await gw.execute(VIEWER, {}, { 'x-service-client-key': gw.sim.alerts.demo.clientKey });
    expect(res.data).toEqual({ viewer: null });
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(alertsCalls()).toBe(0);
  });

  it('answers UNAUTHENTICATED when the alerts service refuses the token, and leaks nothing of it', async () => {
    const bad = 'Bearer not-a-real-token';
    const res = await gw.execute(VIEWER, {}, { authorization: bad, 'x-service-client-key': gw.sim.alerts.demo.clientKey });
    expect(res.data).toEqual({ viewer: null });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ path: ['viewer'], extensions: { code: 'UNAUTHENTICATED' } });
    expect(JSON.stringify(res)).not.toContain('not-a-real-token');
    expect(gw.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1 });
  });

  it('answers UNAUTHENTICATED for a valid token with an unknown client key', async () => {
    const res = await gw.execute(VIEWER, {}, { ...gw.viewerHeaders, 'x-service-client-key': 'someone-elses-key' });
    expect(res.data).toEqual({ viewer: null });
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('two callers at once', () => {
  it('each sees only their own wallet, channels and inbox, however the requests interleave', async () => {
    gw.sim.controls.setLatency({ service: 'alerts' }, { fixedMs: 2, jitterMs: 40 });
    const runs = Array.from({ length: 20 }, (_, i): 'me' | 'other' => (i % 2 === 0 ? 'me' : 'other'));
    const answers = await Promise.all(
      // Each a document of its own: identical operations in flight would share one execution.
      runs.map(async (who, i) => ({ who, res: await gw.execute(VIEWER.replace('{', `{ run${i}: __typename `), {}, who === 'me' ? gw.viewerHeaders : otherHeaders) })),
    );
    for (const { who, res } of answers) {
      const sub = who === 'me' ? me : other;
      expect(res.errors).toBeUndefined();
      const viewer = res.data!['viewer'];
      expect(viewer.walletAddress).toBe(sub.walletAddress);
      expect(viewer.wallet.address).toBe(sub.walletAddress);
      expect(viewer.channels).toEqual([...sub.channels].map(([key, c]) => ({ key, value: c.value })).sort(byKeyRank));
      const own = new Set(sub.inbox.map((a) => a.id));
      const ids = viewer.inbox.edges.map((e: { node: { notificationId: string } }) => e.node.notificationId);
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((id: string) => own.has(id))).toBe(true);
    }
    // At most one identity call per request (a caller's identical reads in flight share one call), each
    // with its own caller's token: none shared between callers.
    const tokens = gw.sim.controls.headerLog({ service: 'alerts', route: 'GET /v2/auth' }).map((e) => e.headers.authorization);
    expect(tokens.length).toBeLessThanOrEqual(20);
    expect(new Set(tokens)).toEqual(new Set([`Bearer ${me.token}`, `Bearer ${other.token}`]));
  });
});

const LISTING_ORDER = ['EMAIL', 'TELEGRAM'];
function byKeyRank(a: { key: string }, b: { key: string }): number {
  const rank = (k: string) => (LISTING_ORDER.includes(k) ? LISTING_ORDER.indexOf(k) : LISTING_ORDER.length);
  return rank(a.key) - rank(b.key);
}

describe("the caller's credentials", () => {
  it('go to the alerts service only; markets and assets calls carry the gateway key alone', async () => {
    const res = await gw.execute(operation('MobileHome'), {}, gw.viewerHeaders);
    expect(res.errors).toBeUndefined();

    const log = gw.sim.controls.headerLog();
    const alerts = log.filter((e) => e.service === 'alerts');
    const elsewhere = log.filter((e) => e.service !== 'alerts');
    expect(alerts.length).toBeGreaterThan(0);
    expect(elsewhere.some((e) => e.service === 'markets')).toBe(true);
    for (const entry of alerts) {
      expect(entry.headers.authorization).toBe(gw.viewerHeaders['authorization']);
      expect(entry.headers['x-service-client-key']).toBe(gw.viewerHeaders['x-service-client-key']);
    }
    for (const entry of elsewhere) {
      expect(entry.headers.authorization).toBeUndefined();
      expect(entry.headers['x-service-client-key']).toBe(GATEWAY_KEY);
      expect(JSON.stringify(entry.headers)).not.toContain(me.token);
    }
  });
});

describe('the MobileHome operation', () => {
  it("answers the viewer part: the caller, the unread count and the channels with their apps", async () => {
    const res = await gw.execute(operation('MobileHome'), {}, gw.viewerHeaders);
    expect(res.errors).toBeUndefined();
    const viewer = res.data!['viewer'];
    expect(viewer.id).toEqual(expect.any(String));
    expect(viewer.walletAddress).toBe(me.walletAddress);
    expect(viewer.wallet.address).toBe(me.walletAddress);
    const subscribed = new Set([...me.apps].filter(([, set]) => set.size > 0).map(([id]) => id));
    expect(viewer.unreadCount).toBe(me.inbox.filter((a) => !a.read && subscribed.has(a.appId)).length);
    expect(viewer.channels).toHaveLength(2);
    expect(viewer.channels[1]).toMatchObject({ key: 'TELEGRAM', type: 'EMAIL', verified: true, subscribed: true });
    const onTelegram = [...me.apps].filter(([, set]) => set.has('TELEGRAM')).map(([id]) => id);
    expect(viewer.channels[1].subscribedApps).toEqual(
      onTelegram.map((id) => {
        const app = gw.sim.alerts.appById(id)!;
        return { id: expect.any(String), appId: id, name: app.name, icon: app.icon };
      }),
    );
    expect(res.data!['topLending'].edges.length).toBeGreaterThan(0);
    // The channels' apps carry what MobileHome asks: no apps listing needed.
    expect(gw.sim.controls.count('alerts')).toBe(3);
    expect(gw.sim.controls.count('alerts', 'GET /v2/apps')).toBe(0);
  });
});

describe('when the alerts service fails', () => {
  it('nulls the viewer with UPSTREAM_UNAVAILABLE naming alerts, while other root fields still arrive', async () => {
    gw.sim.controls.setFault({ service: 'alerts' }, { status: 503 });
    const res = await gw.execute(
      /* GraphQL */ `{ viewer { walletAddress } markets(first: 2) { edges { node { marketId } } } }`,
      {},
      gw.viewerHeaders,
    );
    expect(res.status).toBe(200);
    expect(res.data!['viewer']).toBeNull();
    expect(res.data!['markets'].edges).toHaveLength(2);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({
      path: ['viewer'],
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'alerts', retryable: true },
    });
  });

  it('nulls only the field whose call failed: the channels, not the viewer or its wallet', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: 'GET /v2/channels' }, { status: 503 });
    const res = await gw.execute(VIEWER, {}, gw.viewerHeaders);
    expect(res.data!['viewer']).toMatchObject({ walletAddress: me.walletAddress, wallet: { address: me.walletAddress }, channels: null });
    expect(res.data!['viewer'].inbox.edges).toHaveLength(20);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ path: ['viewer', 'channels'], extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'alerts' } });
  });

  it('passes a rate limit on as RATE_LIMITED with the wait', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: 'GET /v2/history/summary' }, { status: 429, retryAfterSeconds: 7 });
    const res = await gw.execute(/* GraphQL */ `{ viewer { walletAddress unreadCount } }`, {}, gw.viewerHeaders);
    expect(res.data!['viewer']).toEqual({ walletAddress: me.walletAddress, unreadCount: null });
    expect(res.errors![0]).toMatchObject({ path: ['viewer', 'unreadCount'], extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 7 } });
  });
});

describe('bad inputs', () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['a non-UUID appId on the inbox', `query ($v: String) { viewer { inbox(appId: $v) { edges { cursor } } } }`, { v: '../../v2/apps' }],
    ['a non-UUID appId on the unread count', `query ($v: String) { viewer { unreadCount(appId: $v) } }`, { v: 'kamino' }],
    ['first above 20', `query ($v: Int) { viewer { inbox(first: $v) { edges { cursor } } } }`, { v: 21 }],
    ['first of 0', `query ($v: Int) { viewer { inbox(first: $v) { edges { cursor } } } }`, { v: 0 }],
    ['an after that is no cursor of ours', `query ($v: String) { viewer { inbox(after: $v) { edges { cursor } } } }`, { v: 'eyJub3BlIjp0cnVlfQ' }],
    ['garbage as after', `query ($v: String) { viewer { inbox(after: $v) { edges { cursor } } } }`, { v: '%%%' }],
  ];

  it.each(cases)('rejects %s with BAD_USER_INPUT before any inbox call', async (_name, query, variables) => {
    const res = await gw.execute(query, variables, gw.viewerHeaders);
    expect(res.status).toBe(200);
    expect(res.data!['viewer']).not.toBeNull();
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(res.errors![0]!.message).toMatch(/must be/);
    // Only the identity of the viewer was read; nothing carrying the bad input left the gateway.
    expect(gw.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1 });
  });

  it("rejects a cursor of one app's inbox used for another scope", async () => {
    const appId = gw.sim.alerts.apps[0]!.id;
    const first = await gw.execute(
      /* GraphQL */ `query ($appId: String) { viewer { inbox(first: 2, appId: $appId) { pageInfo { endCursor } } } }`,
      { appId },
      gw.viewerHeaders,
    );
    const after = first.data!['viewer'].inbox.pageInfo.endCursor;
    gw.sim.controls.resetCounts();
    const res = await gw.execute(
      /* GraphQL */ `query ($after: String) { viewer { inbox(first: 2, after: $after) { edges { cursor } } } }`,
      { after },
      gw.viewerHeaders,
    );
    expect(res.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(gw.sim.controls.count('alerts', 'GET /v2/history')).toBe(0);
  });

  it('rejects an unknown ChannelType at validation, with no call at all', async () => {
    const res = await gw.execute(/* GraphQL */ `{ viewer { channel(type: DISCORD) { key } } }`, {}, gw.viewerHeaders);
    expect(res.errors![0]!.message).toMatch(/DISCORD/);
    expect(gw.sim.controls.count('alerts')).toBe(0);
  });
});
