import { describe, expect, it } from 'vitest';
import { mapApps, mapChannelListing, mapInbox, toSendBody } from '../../src/upstream/alerts/map.js';
import { fixture } from './helpers.js';

describe('alerts mapper', () => {
  const channels = mapChannelListing(fixture('channels.json'));

  it('one channel per listing key, the key kept as sent and the type as the record says', () => {
    expect(channels.map((c) => [c.key, c.type, c.rawType])).toEqual([
      ['EMAIL', 'EMAIL', 'EMAIL'],
      ['TELEGRAM', 'EMAIL', 'EMAIL'],
      ['DISCORD', 'UNKNOWN', 'DISCORD'],
    ]);
  });

  it('subscribed apps: mapped, missing or null = []', () => {
    expect(channels[0]?.subscribedApps).toEqual([
      { appId: '6f1c2d3e-1111-4a5b-8c9d-0e1f2a3b4c5d', name: 'Kamino Alerts', icon: 'https://cdn.example.com/kamino.png' },
      { appId: '6f1c2d3e-2222-4a5b-8c9d-0e1f2a3b4c5d', name: 'Drift Alerts', icon: null },
    ]);
    expect(channels[1]?.subscribedApps).toEqual([]);
    expect(channels[2]?.subscribedApps).toEqual([]);
    expect(channels[1]).toMatchObject({ id: 'ch-tg-1', value: '@ada', verified: false, subscribed: false });
  });

  it('apps with topics', () => {
    expect(mapApps(fixture('apps.json'))).toEqual([
      {
        appId: '6f1c2d3e-1111-4a5b-8c9d-0e1f2a3b4c5d',
        name: 'Kamino Alerts',
        description: 'Liquidation warnings',
        icon: 'https://cdn.example.com/kamino.png',
        subscribed: true,
        topics: [
          { topicId: 't-1', name: 'Liquidations', slug: 'liquidations', description: null, subscribed: true },
          { topicId: 't-2', name: 'Rates', slug: 'rates', description: 'Rate changes', subscribed: false },
        ],
      },
      { appId: '6f1c2d3e-2222-4a5b-8c9d-0e1f2a3b4c5d', name: 'Drift Alerts', description: null, icon: null, subscribed: false, topics: [] },
    ]);
  });

  it('inbox page: notifications, actions, data, topic, app, read (from the record or the last-read mark)', () => {
    const page = mapInbox(fixture('history.json'));
    expect(page).toMatchObject({ unreadCount: 2, lastReadAt: '2025-10-09T00:00:00.000Z', limit: 3, cursor: 'c-2' });
    const [first, second, third] = page.notifications;
    expect(first).toEqual({
      notificationId: 'alert-3',
      timestamp: '2025-10-10T12:00:00.000Z',
      title: 'Health factor low',
      body: 'Your SOL loan is close to liquidation.',
      image: 'https://cdn.example.com/warn.png',
      actions: [
        { label: 'Repay', url: 'https://app.example.com/repay', context: { type: 'position', apiUrl: 'https://api.example.com/positions/pos-lend-borrow', action: 'repay' } },
        { label: 'Open', url: 'https://app.example.com/', context: null },
      ],
      data: { positionId: 'pos-lend-borrow', severity: 'high' },
      topic: { topicId: 't-1', name: 'Liquidations', slug: 'liquidations' },
      app: { appId: '6f1c2d3e-1111-4a5b-8c9d-0e1f2a3b4c5d', name: 'Kamino Alerts', icon: 'https://cdn.example.com/kamino.png' },
      read: false,
    });
    expect(second).toMatchObject({ read: false, image: null, actions: [], data: null, topic: null });
    expect(third).toMatchObject({ read: true, app: null });
  });

  it('send input → upstream body', () => {
    expect(
      toSendBody({ channels: ['EMAIL'], title: 't', body: 'b', topicId: 'topic-1', data: { k: 'v' }, recipient: { walletAddress: 'W1' } }),
    ).toEqual({ channels: ['EMAIL'], message: { title: 't', body: 'b' }, topicId: 'topic-1', data: { k: 'v' }, recipient: { type: 'subscriber', walletAddress: 'W1' } });
  });
});
