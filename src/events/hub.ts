import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Counter, Gauge } from 'prom-client';
import type { ServiceDeps } from '../deps.js';
import { gatewayError } from '../errors.js';
import { matchesFilter, type Event, type EventFilter } from './model.js';
import type { IgnoredEvent, ParsedBatch } from './parse.js';
import { SubscriberQueue } from './queue.js';
import { createSeenIds } from './seen.js';

/** The one pub/sub topic; each subscriber filters by kind and asset. */
export const EVENTS_TOPIC = 'gateway:events';
/**
 * Events a subscriber may fall behind by. One more, and it is dropped: its stream ends with a
 * `RATE_LIMITED` error (`reason: "SUBSCRIBER_TOO_SLOW"`), and it may subscribe again.
 */
export const SUBSCRIBER_QUEUE = 1024;
/** Events published at a time; between two chunks the hub yields to the event loop, so readers drain. */
export const PUBLISH_CHUNK = 128;
/**
 * How long one batch may wait, in all, for this replica's subscribers to make room for its next chunk.
 * Past it, a subscriber without room for the next chunk is dropped rather than waited for.
 */
export const DRAIN_WAIT_MS = 2000;

export interface EventHub {
  /**
   * Takes a verified webhook batch: drops repeats of already delivered ids and publishes the rest to
   * subscribers on every replica, a chunk at a time. Rejects with `EventsNotPublished` when a
   * publish fails, after forgetting those ids, so that a retry of the batch delivers them.
   */
  receive(batch: ParsedBatch): Promise<{ published: number; duplicates: number; ignored: number }>;
  /** The events matching `filter`, from now until the caller stops, falls too far behind, or the hub closes. */
  subscribe(filter: EventFilter): AsyncIterableIterator<Event>;
  /** Subscriptions open on this replica. */
  readonly subscriptions: number;
  /** Ends every open subscription and closes the Redis connections. */
  close(): Promise<void>;
}

/** Some events of a batch could not be published (Redis away); they are not remembered as delivered. */
export class EventsNotPublished extends Error {
  constructor(readonly count: number) {
    super(`${count} event(s) could not be published`);
  }
}

interface Subscriber {
  filter: EventFilter;
  queue: SubscriberQueue<Event>;
}

/**
 * Fans webhook events out to subscriptions: in process, or with `REDIS_URL` through Redis pub/sub
 * (Yoga's Redis event target) so a webhook received by any replica reaches subscribers on all. Each
 * subscriber has a queue of `SUBSCRIBER_QUEUE` events: memory stays bounded whoever stops reading.
 */
export function createEventHub(deps: ServiceDeps): EventHub {
  const { config, logger, registry } = deps;
  const outcomes = new Counter({
    name: 'gateway_webhook_events_total',
    help: 'Webhook events by outcome: published, duplicate (a repeat of a delivered id) or ignored (unknown kind, malformed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const gauge = new Gauge({ name: 'gateway_event_subscriptions', help: 'Event subscriptions open on this replica.', registers: [registry] });
  const drops = new Counter({
    name: 'gateway_event_subscribers_dropped_total',
    help: `Event subscriptions closed because they fell more than ${SUBSCRIBER_QUEUE} events behind.`,
    registers: [registry],
  });

  const subscribers = new Set<Subscriber>();
  const deliver = (event: Event) => {
    for (const subscriber of subscribers) {
      if (matchesFilter(event, subscriber.filter) && !subscriber.queue.offer(event)) drop(subscriber);
    }
  };
  const drop = (subscriber: Subscriber) => {
    drops.inc();
    logger.warn({ queue: SUBSCRIBER_QUEUE }, 'events: subscriber fell behind; its subscription is closed');
    subscriber.queue.fail(
      gatewayError(`This subscription fell more than ${SUBSCRIBER_QUEUE} events behind and was closed; subscribe again.`, 'RATE_LIMITED', {
        reason: 'SUBSCRIBER_TOO_SLOW',
      }),
    );
  };

  /** How events leave this replica (`publish`) and arrive (`listen` while it has subscribers). */
  let bus: { publish(event: Event): void; listen(on: boolean): void };
  /** While `receive` publishes: the outcome of each Redis PUBLISH, in order (in process, nothing is collected). */
  let publishing: Promise<boolean>[] | null = null;
  let publisher: Redis | null = null;
  let subscriber: Redis | null = null;
  if (config.redisUrl) {
    const redisUrl = config.redisUrl;
    publisher = new Redis(redisUrl, { connectionName: 'gateway-events-pub', commandTimeout: 1000, maxRetriesPerRequest: 2 });
    // SUBSCRIBE waits for a reconnect rather than failing: a channel whose SUBSCRIBE failed would stay deaf after Redis returns.
    subscriber = new Redis(redisUrl, { connectionName: 'gateway-events-sub', maxRetriesPerRequest: null });
    for (const client of [publisher, subscriber]) client.on('error', (err: Error) => logger.warn({ err }, 'events: Redis connection error'));
    const failed = (what: string) => (err: unknown) => logger.error({ err }, `events: Redis ${what} failed`);
    // The adapter leaves its SUBSCRIBE, UNSUBSCRIBE and PUBLISH promises unhandled, and an unhandled
    // rejection ends the process: it gets a view whose commands log their failures instead.
    const sub = subscriber;
    const pub = publisher;
    const subscribeClient = {
      on: (event: string, listener: (...args: any[]) => void) => sub.on(event, listener),
      subscribe: (...channels: string[]) => sub.subscribe(...channels).catch(failed('SUBSCRIBE')),
      unsubscribe: (...channels: string[]) => sub.unsubscribe(...channels).catch(failed('UNSUBSCRIBE')),
    } as unknown as Redis;
    // The adapter publishes without waiting: `receive` collects each PUBLISH to learn whether it went out.
    const publishClient = {
      publish: (channel: string, message: string) => {
        const sent = pub.publish(channel, message).then(
          () => true,
          (err: unknown) => (failed('PUBLISH')(err), false),
        );
        publishing?.push(sent);
        return sent;
      },
    } as unknown as Redis;
    const target = createRedisEventTarget<CustomEvent<Event>>({ publishClient, subscribeClient });
    const listener = (message: CustomEvent<Event>) => deliver(message.detail);
    bus = {
      publish: (event) => target.dispatchEvent(new CustomEvent(EVENTS_TOPIC, { detail: event })),
      listen: (on) => (on ? target.addEventListener(EVENTS_TOPIC, listener) : target.removeEventListener(EVENTS_TOPIC, listener)),
    };
  } else {
    bus = { publish: deliver, listen: () => {} };
  }

  /**
   * Yields to the event loop, then waits until every local subscriber has room for another chunk or
   * the batch's `deadline` passes; those still without room then have fallen behind and are dropped.
   */
  const makeRoom = async (deadline: number) => {
    await yieldToLoop();
    const behind = () => [...subscribers].filter((s) => s.queue.length > SUBSCRIBER_QUEUE - PUBLISH_CHUNK);
    while (behind().length > 0 && Date.now() < deadline) await sleep(5);
    for (const subscriber of behind()) drop(subscriber);
  };

  const seen = createSeenIds({ redis: publisher, logger });
  let closed = false;

  return {
    async receive({ events, ignored }) {
      // One line per batch: a batch of 10,000 unknown events is not 10,000 lines.
      if (ignored.length > 0) logger.warn({ ignored: ignored.length, reasons: countReasons(ignored) }, 'webhook: events ignored');
      outcomes.inc({ outcome: 'ignored' }, ignored.length);
      const fresh = await seen.claim(events.map((event) => event.eventId));
      const toPublish = events.filter((_, i) => fresh[i]);
      const lost: string[] = [];
      const deadline = Date.now() + DRAIN_WAIT_MS;
      for (let start = 0; start < toPublish.length; start += PUBLISH_CHUNK) {
        if (start > 0) await makeRoom(deadline);
        const chunk = toPublish.slice(start, start + PUBLISH_CHUNK);
        const sent: Promise<boolean>[] = [];
        publishing = sent;
        try {
          for (const event of chunk) bus.publish(event);
        } finally {
          publishing = null;
        }
        const outcome = await Promise.all(sent);
        for (let i = 0; i < outcome.length; i++) if (outcome[i] === false) lost.push(chunk[i]!.eventId);
      }
      if (lost.length > 0) {
        // Not delivered: forget them, so the upstream's retry of this batch delivers them then.
        await seen.release(lost);
        throw new EventsNotPublished(lost.length);
      }
      const published = toPublish.length;
      outcomes.inc({ outcome: 'published' }, published);
      outcomes.inc({ outcome: 'duplicate' }, events.length - published);
      return { published, duplicates: events.length - published, ignored: ignored.length };
    },

    subscribe(filter) {
      const entry: Subscriber = {
        filter,
        queue: new SubscriberQueue<Event>(SUBSCRIBER_QUEUE, () => {
          subscribers.delete(entry);
          gauge.dec();
          if (subscribers.size === 0) bus.listen(false);
        }),
      };
      gauge.inc();
      if (closed) {
        entry.queue.end();
        return entry.queue;
      }
      subscribers.add(entry);
      if (subscribers.size === 1) bus.listen(true);
      return entry.queue;
    },

    get subscriptions() {
      return subscribers.size;
    },

    async close() {
      closed = true;
      for (const { queue } of [...subscribers]) queue.end();
      await Promise.all([publisher, subscriber].map((client) => (client ? disconnect(client) : undefined)));
    },
  };
}

/** How many events were ignored for each reason (at most 10 reasons named, the rest counted together). */
function countReasons(ignored: readonly IgnoredEvent[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const { reason } of ignored) {
    const key = counts.has(reason) || counts.size < 10 ? reason : 'other reasons';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Object.fromEntries(counts);
}

/** QUIT when connected (pending replies arrive first); otherwise drop the connection at once rather than queue. */
async function disconnect(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // fall through
    }
  }
  client.disconnect();
}
