import { describe, expect, it } from 'vitest';
import { operation, useTestGateway } from '../helpers/gateway.js';
import { inboxKit, type PageData } from '../helpers/alerts-gateway.js';

const gw = useTestGateway({ resetControls: true });
const { count, expectedInbox, page, pageToEnd } = inboxKit(gw);

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
