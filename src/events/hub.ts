import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { setMaxListeners } from 'node:events';
import { createPubSub, Repeater, SlidingBuffer, type PubSub, type PubSubEvent, type PubSubEventTarget } from 'graphql-yoga';
import { Redis } from 'ioredis';
import { Counter, Gauge } from 'prom-client';
import type { ServiceDeps } from '../deps.js';
import { matchesFilter, type Event, type EventFilter } from './model.js';
import type { ParsedBatch } from './parse.js';
import { createSeenIds } from './seen.js';

/** The one pub/sub topic; each subscriber filters by kind and asset. */
export const EVENTS_TOPIC = 'gateway:events';
/** Events a slow subscriber may fall behind by before the oldest are dropped. */
const SUBSCRIBER_BUFFER = 256;

type Topics = { [EVENTS_TOPIC]: [Event] };

export interface EventHub {
  /**
   * Takes a verified webhook batch: drops repeats of already delivered ids and publishes the rest to
   * subscribers on every replica without waiting for them. Rejects with `EventsNotPublished` when a
   * publish fails, after forgetting those ids, so that a retry of the batch delivers them.
   */
  receive(batch: ParsedBatch): Promise<{ published: number; duplicates: number; ignored: number }>;
  /** The events matching `filter`, from now until the caller stops or the hub closes. */
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

/**
 * Fans webhook events out to subscriptions: in process, or with `REDIS_URL` through Redis pub/sub
 * (Yoga's Redis event target) so a webhook received by any replica reaches subscribers on all.
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

  /** While `receive` publishes: the outcome of each Redis PUBLISH, in order (in process, nothing is collected). */
  let publishing: Promise<boolean>[] | null = null;
  let publisher: Redis | null = null;
  let subscriber: Redis | null = null;
  let pubsub: PubSub<Topics>;
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
    pubsub = createPubSub<Topics>({
      eventTarget: createRedisEventTarget<PubSubEvent<Topics, typeof EVENTS_TOPIC>>({ publishClient, subscribeClient }),
    });
  } else {
    // Every open subscription listens on this one target: Node's leak warning past 10 listeners is noise here.
    const eventTarget = new EventTarget();
    setMaxListeners(0, eventTarget);
    pubsub = createPubSub<Topics>({ eventTarget: eventTarget as PubSubEventTarget<Topics> });
  }

  const seen = createSeenIds({ redis: publisher, logger });
  const open = new Set<() => void>();
  let closed = false;

  return {
    async receive({ events, ignored }) {
      for (const { id, reason } of ignored) logger.warn({ eventId: id, reason }, 'webhook: event ignored');
      outcomes.inc({ outcome: 'ignored' }, ignored.length);
      const fresh = await seen.claim(events.map((event) => event.eventId));
      const toPublish = events.filter((_, i) => fresh[i]);
      const sent: Promise<boolean>[] = [];
      publishing = sent;
      try {
        for (const event of toPublish) pubsub.publish(EVENTS_TOPIC, event);
      } finally {
        publishing = null;
      }
      const outcome = await Promise.all(sent);
      const lost = toPublish.filter((_, i) => outcome[i] === false).map((event) => event.eventId);
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
      return new Repeater<Event>(async (push, stop) => {
        if (closed) return stop();
        const source = pubsub.subscribe(EVENTS_TOPIC);
        const end = () => stop();
        open.add(end);
        gauge.inc();
        stop.then(() => {
          open.delete(end);
          gauge.dec();
          void source.return();
        });
        for await (const event of source) {
          if (matchesFilter(event, filter)) await push(event);
        }
      }, new SlidingBuffer(SUBSCRIBER_BUFFER));
    },

    get subscriptions() {
      return open.size;
    },

    async close() {
      closed = true;
      for (const end of [...open]) end();
      await Promise.all([publisher, subscriber].map((client) => (client ? disconnect(client) : undefined)));
    },
  };
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
