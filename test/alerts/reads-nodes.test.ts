import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { me, inboxKit } from '../helpers/alerts-gateway.js';

const gw = useTestGateway({ resetControls: true });
const { count, expectedInbox } = inboxKit(gw);

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
