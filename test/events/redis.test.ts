import { describe, expect, it } from 'vitest';
import { EVENTS_TOPIC } from '../../src/events/redis-channel.js';
import { useRedisReplicas } from '../helpers/gateway.js';
import { needsRedis } from '../helpers/processes.js';
import { openStream, postWebhook, priceChange, startEventsGateway, trending } from './helpers.js';

const haveRedis = needsRedis('test/events/redis.test.ts');

describe.runIf(haveRedis)('events across replicas through Redis', () => {
  const r = useRedisReplicas({ start: startEventsGateway });

  /** Waits until Redis has `n` subscribers on the events topic (each replica subscribes as it starts, and stays). */
  async function redisSubscribers(n: number): Promise<void> {
    await expect
      .poll(async () => {
        const [, count] = (await r.probe.pubsub('NUMSUB', EVENTS_TOPIC)) as [string, number];
        return count;
      })
      .toBe(n);
  }

  it('delivers a webhook received by one replica to a subscriber on the other', async () => {
    const stream = await openStream(r.b, 'subscription { events { __typename eventId assetId asset { symbol } } }');
    const next = stream.next();
    await redisSubscribers(2);

    const answer = await postWebhook(r.a, { events: [priceChange('across-1')] });
    expect(answer).toEqual({ status: 200, body: { received: 1, duplicates: 0, ignored: 0 } });
    expect((await next)?.data.events).toEqual({
      __typename: 'TokenPriceChangeEvent',
      eventId: 'across-1',
      assetId: 'solana:So11111111111111111111111111111111111111112',
      asset: { symbol: 'SOL' },
    });
    await stream.close();
    await redisSubscribers(2); // the replica stays subscribed without streams
  });

  it('delivers a batch of 3,000 events to a subscriber on the other replica, in order', async () => {
    const stream = await openStream(r.b, 'subscription { events { eventId } }');
    const reading = (async () => {
      const ids: string[] = [];
      while (ids.length < 3000) {
        const message = await stream.next();
        if (!message) break;
        ids.push(message.data.events.eventId);
      }
      return ids;
    })();
    await redisSubscribers(2);
    const events = Array.from({ length: 3000 }, (_, i) => priceChange(`across-batch-${i}`));
    expect((await postWebhook(r.a, { events })).status).toBe(200);
    expect(await reading).toEqual(events.map((event) => event.id));
    await stream.close();
    await redisSubscribers(2); // the replica stays subscribed without streams
  });

  it('drops a retry that lands on the other replica', async () => {
    const onFirst = await openStream(r.a, 'subscription { events { eventId } }');
    const onSecond = await openStream(r.b, 'subscription { events { eventId } }');
    const [a, b] = [onFirst.next(), onSecond.next()];
    await redisSubscribers(2);

    const batch = { events: [trending('retried-elsewhere')] };
    expect((await postWebhook(r.a, batch)).body).toMatchObject({ duplicates: 0 });
    expect((await postWebhook(r.b, batch)).body).toMatchObject({ duplicates: 1 });
    await postWebhook(r.b, { events: [trending('after-the-retry')] });

    // Each subscriber gets the event once, then the next one.
    expect((await a)?.data.events.eventId).toBe('retried-elsewhere');
    expect((await b)?.data.events.eventId).toBe('retried-elsewhere');
    expect((await onFirst.next())?.data.events.eventId).toBe('after-the-retry');
    expect((await onSecond.next())?.data.events.eventId).toBe('after-the-retry');
    await onFirst.close();
    await onSecond.close();
  });

  // Last: it restarts the server the other cases share.
  it('keeps serving through a Redis outage, refuses what it cannot deliver, and delivers the retry when Redis returns', async () => {
    const stream = await openStream(r.b, 'subscription { events { eventId } }');
    const next = stream.next();
    await redisSubscribers(2);

    await r.stopRedis();
    // The publish fails: 503, so that the upstream retries; nothing crashes and queries still run.
    const batch = { events: [trending('during-outage')] };
    expect(await postWebhook(r.a, batch)).toEqual({ status: 503, body: { error: 'events could not be delivered; retry later' } });
    expect((await r.b.execute('{ __typename }')).data).toEqual({ __typename: 'Query' });

    await r.startRedis();
    await redisSubscribers(2); // the replicas resubscribed on reconnect
    // The upstream's retries of the same batch: the publishing replica reconnects on its own schedule,
    // and the event refused during the outage was not remembered as delivered.
    let received: string | undefined;
    void next.then((message) => (received = message?.data.events.eventId));
    const statuses: number[] = [];
    await expect
      .poll(async () => {
        if (!received) statuses.push((await postWebhook(r.a, batch)).status);
        return received;
      })
      .toBe('during-outage');
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.every((status) => status === 503 || status === 200)).toBe(true);
    await stream.close();
  });
});
