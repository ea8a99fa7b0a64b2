import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { UNKNOWN_APP_ID, alertsKit } from '../helpers/alerts-gateway.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });
const { count, demo, me, mutate } = alertsKit(gw);

describe('app subscriptions', () => {
  const UNSUBSCRIBE = `mutation($input: UnsubscribeFromAppsInput!) {
    unsubscribeFromApps(input: $input) {
      apps { appId subscribed }
      userErrors { code field }
      viewer { email: channel(type: EMAIL) { subscribedApps { appId } } }
    }
  }`;
  const SUBSCRIBE = `mutation($input: SubscribeToAppsInput!) {
    subscribeToApps(input: $input) { apps { appId subscribed } userErrors { code field } }
  }`;

  it('unsubscribes and subscribes again; the payload shows the apps and channels after the change', async () => {
    const appId = demo().appId;
    const off = await mutate(UNSUBSCRIBE, { input: { appIds: [appId] } });
    expect(off['unsubscribeFromApps']).toEqual({
      apps: [{ appId, subscribed: false }],
      userErrors: [],
      viewer: { email: { subscribedApps: expect.not.arrayContaining([{ appId }]) } },
    });
    expect(me().apps.has(appId)).toBe(false);

    const on = await mutate(SUBSCRIBE, { input: { appIds: [appId], channels: ['IN_APP', 'EMAIL'] } });
    expect(on['subscribeToApps']).toEqual({ apps: [{ appId, subscribed: true }], userErrors: [] });
    expect([...me().apps.get(appId)!].sort()).toEqual(['EMAIL', 'IN_APP']);
    expect(count('POST /v2/unsubscribe')).toBe(1);
    expect(count('POST /v2/subscribe')).toBe(1);
    expect(count('GET /v2/apps')).toBe(2);
  });

  it('reads the apps afresh in the same request after a change', async () => {
    const appId = demo().appId;
    const data = await mutate(`mutation($ids: [String!]) {
      off: unsubscribeFromApps(input: { appIds: $ids }) { apps { subscribed } }
      on: subscribeToApps(input: { appIds: $ids }) { apps { subscribed } viewer { apps { appId subscribed } } }
    }`, { ids: [appId] });
    expect(data['off']).toEqual({ apps: [{ subscribed: false }] });
    expect(data['on'].apps).toEqual([{ subscribed: true }]);
    expect(data['on'].viewer.apps).toContainEqual({ appId, subscribed: true });
  });

  it('answers UNKNOWN_APP for an unknown app (422) and refuses malformed lists without a call', async () => {
    expect((await mutate(SUBSCRIBE, { input: { appIds: [UNKNOWN_APP_ID] } }))['subscribeToApps']).toEqual({
      apps: null,
      userErrors: [{ code: 'UNKNOWN_APP', field: ['appIds'] }],
    });
    expect(count('POST /v2/subscribe')).toBe(1);

    expect((await mutate(SUBSCRIBE, { input: { appIds: [] } }))['subscribeToApps'].userErrors).toEqual([
      { code: 'INVALID_INPUT', field: ['appIds'] },
    ]);
    expect((await mutate(SUBSCRIBE, { input: { appIds: ['x'], channels: [] } }))['subscribeToApps'].userErrors).toEqual([
      { code: 'INVALID_INPUT', field: ['appIds', '0'] },
      { code: 'INVALID_INPUT', field: ['channels'] },
    ]);
    expect(count('POST /v2/subscribe')).toBe(1);
  });
});
