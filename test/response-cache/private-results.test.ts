import { describe, expect, it } from 'vitest';
import { gw, VIEWER_CHANNELS, VIEWER_UNREAD, callsSinceLast, subscriberHeaders, otherSubscriber, useCachedGatewayPerTest } from '../helpers/response-cache-gateway.js';

useCachedGatewayPerTest();

describe('private results', () => {
  it('are cached for the caller who asked only', async () => {
    const mine = await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    expect(mine.errors).toBeUndefined();
    const coldCalls = callsSinceLast();
    expect(coldCalls).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/channels': 1 });

    expect(await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders)).toEqual(mine);
    expect(callsSinceLast()).toEqual({});

    // Another subscriber gets their own answer, from the upstream.
    const other = otherSubscriber();
    const theirs = await gw.execute(VIEWER_CHANNELS, {}, subscriberHeaders(other));
    expect(theirs.data!['viewer'].id).not.toBe(mine.data!['viewer'].id);
    expect(callsSinceLast()).toEqual(coldCalls);

    // The same token with another client key is another caller.
    await gw.execute(VIEWER_CHANNELS, {}, { ...gw.viewerHeaders, 'x-service-client-key': gw.sim.alerts.clientKeys[1]! });
    expect(callsSinceLast()['alerts GET /v2/auth']).toBe(1);

    // No credentials: no one's data, and the refusal is not cached.
    for (let i = 0; i < 2; i++) {
      const anonymous = await gw.execute(VIEWER_CHANNELS);
      expect(anonymous.data).toEqual({ viewer: null });
      expect(anonymous.errors![0]!.extensions!['code']).toBe('UNAUTHENTICATED');
    }
  });

  it('are fresh for the caller after their channel mutation, and stay cached for others', async () => {
    const subscriber = otherSubscriber();
    const headers = subscriberHeaders(subscriber);
    const before = await gw.execute(VIEWER_CHANNELS, {}, headers);
    expect(before.data!['viewer'].channels.map((c: { key: string }) => c.key)).not.toContain('EMAIL');
    const coldCalls = callsSinceLast();
    await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    callsSinceLast();
    await gw.execute(VIEWER_CHANNELS, {}, headers);
    expect(callsSinceLast()).toEqual({});

    const prepared = await gw.execute(
      'mutation { prepareEmailChannel(input: { email: "cached@example.com" }) { userErrors { code } } }',
      {},
      headers,
    );
    expect(prepared.data).toEqual({ prepareEmailChannel: { userErrors: [] } });
    expect(callsSinceLast()).toEqual({ 'alerts POST /v2/channel/email/prepare': 1 });

    const after = await gw.execute(VIEWER_CHANNELS, {}, headers);
    expect(after.data!['viewer'].channels).toContainEqual({ key: 'EMAIL', value: 'cached@example.com', verified: false });
    expect(callsSinceLast()).toEqual(coldCalls);

    // The demo subscriber's cached answer was not theirs to drop.
    await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    expect(callsSinceLast()).toEqual({});
  });

  it('show the updated unread count after markNotificationsRead', async () => {
    const before = await gw.execute(VIEWER_UNREAD, {}, gw.viewerHeaders);
    expect(before.data!['viewer'].unreadCount).toBeGreaterThan(0);
    const coldCalls = callsSinceLast();
    expect(coldCalls).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/history/summary': 1 });
    expect(await gw.execute(VIEWER_UNREAD, {}, gw.viewerHeaders)).toEqual(before);
    expect(callsSinceLast()).toEqual({});

    const read = await gw.execute('mutation { markNotificationsRead { userErrors { code } } }', {}, gw.viewerHeaders);
    expect(read.data).toEqual({ markNotificationsRead: { userErrors: [] } });
    expect(callsSinceLast()).toEqual({ 'alerts POST /v2/history/read': 1 });

    const after = await gw.execute(VIEWER_UNREAD, {}, gw.viewerHeaders);
    expect(after.data!['viewer']).toEqual({ id: before.data!['viewer'].id, unreadCount: 0 });
    expect(callsSinceLast()).toEqual(coldCalls);
  });
});

describe('results with errors', () => {
  it('are not cached', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: 'GET /v2/channels' }, { status: 503 });
    const failed = await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    expect(failed.errors![0]!.extensions!['code']).toBe('UPSTREAM_UNAVAILABLE');
    gw.sim.controls.setFault({ service: 'alerts', route: 'GET /v2/channels' }, null);
    callsSinceLast();

    const recovered = await gw.execute(VIEWER_CHANNELS, {}, gw.viewerHeaders);
    expect(recovered.errors).toBeUndefined();
    expect(callsSinceLast()).toEqual({ 'alerts GET /v2/auth': 1, 'alerts GET /v2/channels': 1 });
  });
});
