import { describe, expect, it } from 'vitest';
import { EVENTS_TOPIC } from '../../src/events/redis-channel.js';
import { useRedisReplicas } from '../helpers/gateway.js';
import { needsRedis } from '../helpers/processes.js';
import { openStream, postWebhook, startEventsGateway, trending } from './helpers.js';

const haveRedis = needsRedis('test/events/redis-deaf.test.ts');

describe.runIf(haveRedis)('a replica whose Redis subscription breaks', () => {
  const r = useRedisReplicas({ start: startEventsGateway });

  it('notices it hears nothing, subscribes again, and delivers what the other replica receives', async () => {
    const stream = await openStream(r.b, 'subscription { events { eventId } }');
    const next = stream.next();
    await expect.poll(async () => ((await r.probe.pubsub('NUMSUB', EVENTS_TOPIC)) as [string, number])[1]).toBe(2);

    // Break B's subscription for good: its connection is cut while no channel may be subscribed to, so
    // ioredis's re-subscription on reconnect is refused (NOPERM) and never tried again; then channels
    // are allowed again. The connection is back, subscribed to nothing: deaf.
    await r.probe.call('ACL', 'SETUSER', 'default', 'resetchannels');
    try {
      await r.probe.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      await expect.poll(async () => ((await r.probe.pubsub('NUMSUB', EVENTS_TOPIC)) as [string, number])[1]).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await r.probe.call('ACL', 'SETUSER', 'default', 'allchannels');
    }

    // Within a probe period or two, both replicas hear the channel again, and B's stream gets A's event.
    await expect.poll(async () => ((await r.probe.pubsub('NUMSUB', EVENTS_TOPIC)) as [string, number])[1], { timeout: 15_000, interval: 200 }).toBe(2);
    expect((await postWebhook(r.a, { events: [trending('after-deafness')] })).status).toBe(200);
    expect((await next)?.data.events.eventId).toBe('after-deafness');
    await stream.close();
  }, 30_000);
});
