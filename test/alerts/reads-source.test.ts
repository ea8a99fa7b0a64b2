import { beforeEach, describe, expect, it } from 'vitest';
import { MissingCredentialsError } from '../../src/credentials.js';
import { AlertsSource } from '../../src/sources/alerts.js';
import { UpstreamError } from '../../src/upstream/errors.js';
import { useTestGateway } from '../helpers/gateway.js';

const gw = useTestGateway();
let source: AlertsSource;

beforeEach(() => {
  gw.sim.controls.reset();
  gw.sim.alerts.reset();
  const { demo } = gw.sim.alerts;
  source = new AlertsSource(gw.services, {
    subscriber: { authorization: `Bearer ${demo.token}`, clientKey: demo.clientKey },
    apiKey: null,
  });
});

const count = (route: string) => gw.sim.controls.count('alerts', route);

describe('AlertsSource reads', () => {
  it('loads identity, channels and apps once each, however often asked', async () => {
    const [a, b] = await Promise.all([source.identity(), source.identity()]);
    expect(a).toEqual({ walletAddress: gw.sim.alerts.demo.walletAddress });
    expect(b).toBe(a);
    await Promise.all([source.channels(), source.channels(), source.apps(), source.app(gw.sim.alerts.demo.appId)]);
    expect(await source.app('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(gw.sim.controls.counts()).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/channels': 1, 'alerts GET /v2/apps': 1 });
  });

  it('keys inbox pages by scope, limit and cursor', async () => {
    const first = await source.inbox({ appId: null, limit: 5, cursor: null });
    await source.inbox({ appId: null, limit: 5, cursor: null });
    expect(count('GET /v2/history')).toBe(1);
    const next = await source.inbox({ appId: null, limit: 5, cursor: first.cursor });
    await source.inbox({ appId: null, limit: 6, cursor: null });
    await source.inbox({ appId: gw.sim.alerts.demo.appId, limit: 5, cursor: null });
    expect(count('GET /v2/history')).toBe(4);
    expect(next.notifications[0]!.notificationId).not.toBe(first.notifications[0]!.notificationId);
  });

  it('takes the unread count from an inbox page of the same scope asked for in the same tick', async () => {
    const [summary, page] = await Promise.all([source.summary(null), source.inbox({ appId: null, limit: 3, cursor: null })]);
    expect(summary.unreadCount).toBe(page.unreadCount);
    expect(count('GET /v2/history/summary')).toBe(0);
    // Another scope has no page: it asks for the summary.
    await source.summary(gw.sim.alerts.demo.appId);
    expect(count('GET /v2/history/summary')).toBe(1);
  });

  it('forgets what a mutation invalidates, and only that', async () => {
    await Promise.all([source.channels(), source.apps(), source.inbox({ appId: null, limit: 3, cursor: null }), source.summary(null)]);
    await gw.services.upstream.alerts.deleteEmailChannel(source.requireSubscriber());
    source.invalidate('channels');
    expect((await source.channels()).map((c) => c.key)).toEqual(['TELEGRAM']);
    await source.apps();
    await source.inbox({ appId: null, limit: 3, cursor: null });
    expect(gw.sim.controls.counts()).toMatchObject({
      'alerts GET /v2/channels': 2,
      'alerts GET /v2/apps': 1,
      'alerts GET /v2/history': 1,
    });

    await gw.services.upstream.alerts.markRead(source.requireSubscriber());
    source.invalidate('inbox');
    expect((await source.summary(null)).unreadCount).toBe(0);
    expect((await source.inbox({ appId: null, limit: 3, cursor: null })).notifications.every((n) => n.read)).toBe(true);
    source.invalidate('apps');
    await source.apps();
    expect(count('GET /v2/apps')).toBe(2);
  });

  it('rejects with MissingCredentialsError (UNAUTHENTICATED once masked) and calls nothing without credentials', async () => {
    const anonymous = new AlertsSource(gw.services, { subscriber: null, apiKey: null });
    const loads = [
      anonymous.identity(),
      anonymous.channels(),
      anonymous.apps(),
      anonymous.app(gw.sim.alerts.demo.appId),
      anonymous.inbox({ appId: null, limit: 10, cursor: null }),
      anonymous.summary(null),
      anonymous.inboxCount(null),
    ];
    for (const load of loads) {
      await expect(load).rejects.toBeInstanceOf(MissingCredentialsError);
    }
    expect(() => anonymous.requireSubscriber()).toThrow(MissingCredentialsError);
    expect(gw.sim.controls.count('alerts')).toBe(0);
  });

  it('rejects with the upstream failure itself (no GraphQL error), remembered for the request', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: 'GET /v2/channels' }, { status: 503 });
    await expect(source.channels()).rejects.toMatchObject({ kind: 'UNAVAILABLE', service: 'alerts', status: 503 });
    await expect(source.channels()).rejects.toBeInstanceOf(UpstreamError);
    expect(count('GET /v2/channels')).toBe(1);
  });
});
