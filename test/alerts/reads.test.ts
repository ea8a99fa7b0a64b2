import { beforeAll, describe, expect, it } from 'vitest';
import type { AlertRecord, SubscriberRecord } from '../../src/simulator/alerts/index.js';
import { operation, useTestGateway } from '../helpers/gateway.js';

const gw = useTestGateway({ resetControls: true });
let me: SubscriberRecord;

beforeAll(() => {
  me = gw.sim.alerts.subscribers.get(gw.sim.alerts.demo.walletAddress)!;
});

const count = (route: string) => gw.sim.controls.count('alerts', route);
const subscribedAppIds = (s: SubscriberRecord) => new Set([...s.apps].filter(([, set]) => set.size > 0).map(([id]) => id));
const newestFirst = (a: AlertRecord, b: AlertRecord) =>
  a.timestamp !== b.timestamp ? (a.timestamp < b.timestamp ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/** What the sim holds for the demo subscriber's inbox: one app's, or every subscribed app's. */
function expectedInbox(appId?: string): AlertRecord[] {
  const scope = appId ? new Set([appId]) : subscribedAppIds(me);
  return me.inbox.filter((a) => scope.has(a.appId)).sort(newestFirst);
}

const INBOX_PAGE = /* GraphQL */ `
  query Page($first: Int, $after: String, $appId: String) {
    viewer {
      inbox(first: $first, after: $after, appId: $appId) {
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node { id notificationId timestamp app { appId } } }
      }
    }
  }
`;

interface PageData {
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  edges: { cursor: string; node: { id: string; notificationId: string; timestamp: string; app: { appId: string } | null } }[];
}

async function page(variables: Record<string, unknown>): Promise<PageData> {
  const res = await gw.execute(INBOX_PAGE, variables, gw.viewerHeaders);
  expect(res.errors).toBeUndefined();
  return res.data!['viewer'].inbox as PageData;
}

async function pageToEnd(first: number, appId?: string) {
  const ids: string[] = [];
  let after: string | null = null;
  let pages = 0;
  for (;;) {
    const p: PageData = await page({ first, after, appId });
    pages++;
    expect(p.pageInfo.hasPreviousPage).toBe(after !== null);
    ids.push(...p.edges.map((e) => e.node.notificationId));
    if (!p.pageInfo.hasNextPage) break;
    expect(p.edges).toHaveLength(first);
    after = p.pageInfo.endCursor;
    expect(pages).toBeLessThan(50);
  }
  return { ids, pages };
}

describe('the ViewerInbox operation', () => {
  it('answers unread count, apps and the newest page of the unified inbox with one call per upstream resource', async () => {
    const res = await gw.execute(operation('ViewerInbox'), {}, gw.viewerHeaders);
    expect(res.errors).toBeUndefined();
    const viewer = res.data!['viewer'];
    const inbox = expectedInbox();

    expect(viewer.unreadCount).toBe(inbox.filter((a) => !a.read).length);
    expect(viewer.apps).toHaveLength(gw.sim.alerts.apps.length);
    expect(viewer.inbox.pageInfo.hasNextPage).toBe(true);
    expect(viewer.inbox.edges).toHaveLength(10); // the upstream's default page size
    const first = viewer.inbox.edges[0].node;
    const alert = inbox[0]!;
    expect(first).toMatchObject({
      title: alert.title,
      body: alert.body,
      timestamp: alert.timestamp,
      read: alert.read,
      data: alert.data ?? null,
      app: { appId: alert.appId, name: gw.sim.alerts.appById(alert.appId)!.name },
      actions: (alert.actions ?? []).map(({ label, url }) => ({ label, url })),
    });
    expect(viewer.inbox.edges.map((e: { node: { id: string } }) => e.node.id)).toHaveLength(new Set(viewer.inbox.edges.map((e: { node: { id: string } }) => e.node.id)).size);

    // The unread count comes with the inbox page: no separate summary call.
    expect(gw.sim.controls.counts()).toEqual({
      'alerts GET /v2/auth': 1,
      'alerts GET /v2/apps': 1,
      'alerts GET /v2/history': 1,
    });
  });

  it("scopes the count and the page to one app when given its appId", async () => {
    const appId = gw.sim.alerts.apps[1]!.id;
    const res = await gw.execute(operation('ViewerInbox'), { first: 5, appId }, gw.viewerHeaders);
    expect(res.errors).toBeUndefined();
    const viewer = res.data!['viewer'];
    const inbox = expectedInbox(appId);
    expect(viewer.unreadCount).toBe(inbox.filter((a) => !a.read).length);
    expect(viewer.inbox.edges.map((e: { node: { app: { appId: string } } }) => e.node.app.appId)).toEqual(Array(5).fill(appId));
    expect(count('GET /v2/history/summary')).toBe(0);
  });
});

describe('Subscriber.inbox paging', () => {
  it('pages the unified inbox to the end, newest first, with no duplicates and one upstream call per page', async () => {
    const expected = expectedInbox().map((a) => a.id);
    expect(expected.length).toBeGreaterThan(40);
    const { ids, pages } = await pageToEnd(7);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBe(Math.ceil(expected.length / 7));
    expect(count('GET /v2/history')).toBe(pages);
  });

  it("pages one app's inbox, which holds only that app's notifications", async () => {
    const appId = gw.sim.alerts.apps[0]!.id;
    const expected = expectedInbox(appId).map((a) => a.id);
    const { ids } = await pageToEnd(20, appId);
    expect(ids).toEqual(expected);
    expect(ids.length).toBeLessThan(expectedInbox().length);
  });

  it('resumes after any edge cursor, not only the end cursor', async () => {
    const expected = expectedInbox().map((a) => a.id);
    const p = await page({ first: 8 });
    const third = p.edges[2]!;
    const next = await page({ first: 20, after: third.cursor });
    expect(next.edges.map((e) => e.node.notificationId)).toEqual(expected.slice(3, 23));
    expect(next.pageInfo.hasNextPage).toBe(true);
    expect(next.pageInfo.startCursor).toBe(next.edges[0]!.cursor);
    // Cursors inside the page lead on too.
    const fromStart = await page({ first: 2, after: next.pageInfo.startCursor });
    expect(fromStart.edges.map((e) => e.node.notificationId)).toEqual(expected.slice(4, 6));
  });

  it('reports the end: the last page has hasNextPage false and its end cursor leads to an empty page', async () => {
    const expected = expectedInbox();
    const { ids } = await pageToEnd(20);
    expect(ids).toHaveLength(expected.length);
    let after: string | null = null;
    let last: PageData | undefined;
    do {
      last = await page({ first: 20, after });
      after = last.pageInfo.endCursor;
    } while (last.pageInfo.hasNextPage);
    const beyond = await page({ first: 5, after });
    expect(beyond.edges).toEqual([]);
    expect(beyond.pageInfo).toMatchObject({ hasNextPage: false, startCursor: null, endCursor: null });
  });

  it('counts the whole inbox for totalCount, walking it only when asked', async () => {
    const appId = gw.sim.alerts.apps[2]!.id;
    const res = await gw.execute(
      /* GraphQL */ `query ($appId: String) {
        viewer { all: inbox(first: 1) { totalCount } one: inbox(first: 1, appId: $appId) { totalCount } }
      }`,
      { appId },
      gw.viewerHeaders,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!['viewer'].all.totalCount).toBe(expectedInbox().length);
    expect(res.data!['viewer'].one.totalCount).toBe(expectedInbox(appId).length);

    gw.sim.controls.resetCounts();
    await page({ first: 3 });
    expect(count('GET /v2/history')).toBe(1);
  });
});

describe('Subscriber.unreadCount', () => {
  it('counts unread notifications of the unified inbox and of one app, with one summary call each', async () => {
    const appId = gw.sim.alerts.apps[0]!.id;
    const res = await gw.execute(
      /* GraphQL */ `query ($appId: String) { viewer { all: unreadCount one: unreadCount(appId: $appId) again: unreadCount(appId: $appId) } }`,
      { appId },
      gw.viewerHeaders,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!['viewer']).toEqual({
      all: expectedInbox().filter((a) => !a.read).length,
      one: expectedInbox(appId).filter((a) => !a.read).length,
      again: expectedInbox(appId).filter((a) => !a.read).length,
    });
    expect(res.data!['viewer'].all).toBeGreaterThan(res.data!['viewer'].one);
    expect(count('GET /v2/history/summary')).toBe(2);
  });
});

describe('Subscriber.apps', () => {
  it('lists every app with its description, the subscription state and the topics the caller follows', async () => {
    const res = await gw.execute(
      /* GraphQL */ `{ viewer { apps { id appId name icon description subscribed topics { id topicId name slug description subscribed } } } }`,
      {},
      gw.viewerHeaders,
    );
    expect(res.errors).toBeUndefined();
    const apps = res.data!['viewer'].apps as Record<string, any>[];
    const subscribed = subscribedAppIds(me);
    expect(apps.map((a) => a.appId)).toEqual(gw.sim.alerts.apps.map((a) => a.id));
    for (const app of apps) {
      const record = gw.sim.alerts.appById(app['appId'])!;
      expect(app).toMatchObject({ name: record.name, icon: record.icon, description: record.description ?? null });
      expect(app['subscribed']).toBe(subscribed.has(record.id));
      expect(app['topics']).toEqual(
        (record.topics ?? []).map((t) => ({
          id: expect.any(String),
          topicId: t.id,
          name: t.name,
          slug: t.slug,
          description: t.description ?? null,
          subscribed: me.topics.has(t.id),
        })),
      );
    }
    expect(apps.filter((a) => a['subscribed'])).toHaveLength(4);
    expect(apps.flatMap((a) => a['topics']).filter((t: { subscribed: boolean }) => t.subscribed)).toHaveLength(me.topics.size);
    expect(apps.find((a) => a['topics'].length === 0)).toBeDefined(); // an app the listing gives no topics
  });
});

describe('Subscriber.channels', () => {
  it('lists one channel per key, keeping the TELEGRAM key that holds an EMAIL-type record', async () => {
    const res = await gw.execute(
      /* GraphQL */ `{ viewer {
        channels { id key type rawType value verified subscribed subscribedApps { appId name description subscribed } }
        telegram: channel(type: TELEGRAM) { key type rawType value }
        push: channel(type: PUSH) { key }
      } }`,
      {},
      gw.viewerHeaders,
    );
    expect(res.errors).toBeUndefined();
    const viewer = res.data!['viewer'];
    expect(viewer.channels.map((c: { key: string }) => c.key)).toEqual(['EMAIL', 'TELEGRAM']);
    const [email, telegram] = viewer.channels;
    expect(telegram).toMatchObject({ key: 'TELEGRAM', type: 'EMAIL', rawType: 'EMAIL', value: 'demo@alerts-sim.example' });
    expect(email).toMatchObject({ key: 'EMAIL', type: 'EMAIL', verified: true });
    expect(viewer.telegram).toEqual({ key: 'TELEGRAM', type: 'EMAIL', rawType: 'EMAIL', value: 'demo@alerts-sim.example' });
    expect(viewer.push).toBeNull();

    const onEmail = [...me.apps].filter(([, set]) => set.has('EMAIL')).map(([id]) => id);
    expect(email.subscribedApps.map((a: { appId: string }) => a.appId)).toEqual(onEmail);
    // What the channel's record lacks comes from the apps listing, fetched once.
    for (const app of email.subscribedApps) {
      expect(app).toMatchObject({ subscribed: true, description: gw.sim.alerts.appById(app.appId)!.description ?? null });
    }
    expect(count('GET /v2/channels')).toBe(1);
    expect(count('GET /v2/apps')).toBe(1);
  });

  it('exposes a channel type the gateway does not know as UNKNOWN, keeping the raw type', async () => {
    const [wallet, other] = [...gw.sim.alerts.subscribers].find(([, s]) => [...s.channels.values()].some((c) => c.type === 'DISCORD'))!;
    const res = await gw.execute(
      /* GraphQL */ `{ viewer { walletAddress channels { key type rawType value } unknown: channel(type: UNKNOWN) { key } } }`,
      {},
      { authorization: `Bearer ${other.token}`, 'x-service-client-key': gw.sim.alerts.clientKeys[1]! },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!['viewer'].walletAddress).toBe(wallet);
    expect(res.data!['viewer'].channels).toContainEqual({
      key: 'DISCORD',
      type: 'UNKNOWN',
      rawType: 'DISCORD',
      value: other.channels.get('DISCORD')!.value,
    });
    expect(res.data!['viewer'].unknown).toBeNull();
  });
});

describe('one call per upstream resource per request', () => {
  it('reads identity and the apps listing once however many fields need them', async () => {
    const res = await gw.execute(
      /* GraphQL */ `{
        viewer {
          id walletAddress wallet { address }
          apps { name subscribed }
          channels { subscribedApps { name description subscribed topics { name } } }
          inbox(first: 12) { edges { node { app { name description subscribed } topic { name description subscribed } } } }
        }
        again: viewer { walletAddress apps { appId } }
      }`,
      {},
      gw.viewerHeaders,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!['viewer'].wallet).toEqual({ address: me.walletAddress });
    expect(res.data!['again'].walletAddress).toBe(me.walletAddress);
    expect(gw.sim.controls.counts()).toEqual({
      'alerts GET /v2/auth': 1,
      'alerts GET /v2/apps': 1,
      'alerts GET /v2/channels': 1,
      'alerts GET /v2/history': 1,
    });
  });
});

describe('node(id:)', () => {
  it("resolves the caller's subscriber, channels, apps, topics and notifications by global id", async () => {
    const res = await gw.execute(
      /* GraphQL */ `{ viewer { id channels { id } apps { id topics { id } } inbox(first: 20) { edges { node { id } } } } }`,
      {},
      gw.viewerHeaders,
    );
    const viewer = res.data!['viewer'];
    const topic = viewer.apps[0].topics[0].id;
    const notification = viewer.inbox.edges[17].node.id;
    const ids = [viewer.id, viewer.channels[1].id, viewer.apps[0].id, topic, notification];
    const nodes = await gw.execute(
      /* GraphQL */ `query ($ids: [ID!]!) { nodes(ids: $ids) {
        id __typename
        ... on Subscriber { walletAddress }
        ... on Channel { key type }
        ... on SubscribedApp { appId }
        ... on Topic { topicId }
        ... on Notification { notificationId }
      } }`,
      { ids },
      gw.viewerHeaders,
    );
    expect(nodes.errors).toBeUndefined();
    expect(nodes.data!['nodes'].map((n: { id: string }) => n.id)).toEqual(ids);
    expect(nodes.data!['nodes'].map((n: { __typename: string }) => n.__typename)).toEqual([
      'Subscriber',
      'Channel',
      'SubscribedApp',
      'Topic',
      'Notification',
    ]);
    expect(nodes.data!['nodes'][0].walletAddress).toBe(me.walletAddress);
    expect(nodes.data!['nodes'][1]).toMatchObject({ key: 'TELEGRAM', type: 'EMAIL' });
  });

  it("returns null for another subscriber's id and for a notification beyond the scanned pages", async () => {
    const [, other] = [...gw.sim.alerts.subscribers].find(([w]) => w !== me.walletAddress)!;
    const otherId = Buffer.from(`Subscriber:${other.walletAddress}`).toString('base64');
    const oldest = expectedInbox().at(-1)!;
    const oldestId = Buffer.from(`Notification:${JSON.stringify([oldest.appId, oldest.timestamp, oldest.id])}`).toString('base64');
    const unknownId = Buffer.from(`Notification:${JSON.stringify([null, oldest.timestamp, 'no-such-id'])}`).toString('base64');
    const res = await gw.execute(
      /* GraphQL */ `query ($a: ID!, $b: ID!, $c: ID!) { a: node(id: $a) { id } b: node(id: $b) { id } c: node(id: $c) { id } }`,
      { a: otherId, b: oldestId, c: unknownId },
      gw.viewerHeaders,
    );
    expect(res.errors).toBeUndefined();
    const inApp = expectedInbox(oldest.appId).length;
    expect(inApp).toBeLessThanOrEqual(100);
    expect(res.data).toEqual({ a: null, b: { id: oldestId }, c: null });
    // Scans pages of 20: the app's inbox up to the hit, and the unified one to the end (5 pages at most).
    expect(count('GET /v2/history')).toBe(Math.ceil(inApp / 20) + Math.min(5, Math.ceil(expectedInbox().length / 20)));
  });
});
