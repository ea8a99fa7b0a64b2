import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { me, inboxKit } from '../helpers/alerts-gateway.js';

const gw = useTestGateway({ resetControls: true });
const { count, subscribedAppIds } = inboxKit(gw);

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
