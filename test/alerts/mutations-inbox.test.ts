import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { alertsKit } from '../helpers/alerts-gateway.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });
const { count, demo, me, mutate } = alertsKit(gw);

describe('inbox', () => {
  it('marks notifications read and answers the unread count after the change', async () => {
    const appId = demo().appId;
    const unreadOf = (id?: string) => me().inbox.filter((a) => !a.read && (!id || a.appId === id)).length;
    expect(unreadOf(appId)).toBeGreaterThan(0);

    const one = await mutate(`mutation($ids: [String!]) { markNotificationsRead(input: { appIds: $ids }) { unreadCount userErrors { code } viewer { unreadCount } } }`, {
      ids: [appId],
    });
    expect(unreadOf(appId)).toBe(0);
    expect(one['markNotificationsRead']).toEqual({ unreadCount: 0, userErrors: [], viewer: { unreadCount: unreadOf() } });
    expect(unreadOf()).toBeGreaterThan(0);

    const all = await mutate(`mutation { markNotificationsRead { unreadCount } }`);
    expect(all['markNotificationsRead']).toEqual({ unreadCount: 0 });
    expect(unreadOf()).toBe(0);
    expect(count('POST /v2/history/read')).toBe(2);
  });

  it('clears read notifications; the inbox read in the same request is empty', async () => {
    const data = await mutate(`mutation {
      before: markNotificationsRead(input: {}) { viewer { inbox(first: 5) { edges { node { id } } } } }
      cleared: clearReadNotifications(input: {}) { userErrors { code } viewer { inbox(first: 5) { edges { node { id } } } } }
    }`);
    expect(data['before'].viewer.inbox.edges.length).toBeGreaterThan(0);
    expect(data['cleared']).toEqual({ userErrors: [], viewer: { inbox: { edges: [] } } });
    expect(me().inbox).toHaveLength(0);
    expect(count('POST /v2/history/clear')).toBe(1);
  });

  it('refuses an app id that is not a UUID without a call', async () => {
    const data = await mutate(`mutation { clearReadNotifications(input: { appIds: ["kamino"] }) { userErrors { code field message } } }`);
    expect(data['clearReadNotifications'].userErrors).toEqual([{ code: 'INVALID_INPUT', field: ['appIds', '0'], message: 'An app id is a UUID.' }]);
    expect(count('POST /v2/history/clear')).toBe(0);
  });
});
