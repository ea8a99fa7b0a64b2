import { describe, expect, it } from 'vitest';
import { UUID, sim, demo, call, asDemo, asSub, appHeaders, useAlertsSimulator } from '../helpers/alerts-simulator.js';

useAlertsSimulator();

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
