import type { Redis } from 'ioredis';
import { redisClient } from '../redis-client.js';
import { Counter, type Registry } from 'prom-client';
import type { Config } from '../config.js';
import { gatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Event, EventFilter } from './model.js';
import type { IgnoredEvent, ParsedBatch } from './parse.js';
import { createRedisListener, disconnect, EVENTS_TOPIC, type ListenerTimings, type RedisListener } from './redis-channel.js';
import { createSeenIds } from './seen.js';
import { createSubscribers } from './subscribers.js';

/** Events published at a time; between two chunks the hub yields to the event loop, so readers drain. */
export const PUBLISH_CHUNK = 128;
/**
 * How long one batch may wait, in all, for this replica's subscribers to make room for its next chunk.
 * Past it, a subscriber without room for the next chunk is dropped rather than waited for.
 */
export const DRAIN_WAIT_MS = 2000;
/** How long a new subscription waits for this replica to hear the events channel before it is refused. */
export const LISTEN_WAIT_MS = 5000;

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
  /**
   * With Redis: subscribes this replica to the events channel and verifies it hears its own probe
   * there; resolves only then (retrying until it does). Without Redis: at once.
   */
  start(): Promise<void>;
  /** Whether this replica hears the events channel (verified by a probe; always, without Redis). */
  readonly listening: boolean;
  /**
   * Resolves once this replica hears the events channel; rejects with `UPSTREAM_UNAVAILABLE` after
   * `timeoutMs` (default 5 s). A subscription waits on it before it starts, so no stream is accepted
   * that could not receive what other replicas publish.
   */
  whenListening(timeoutMs?: number): Promise<void>;
  /** Ends every open subscription and closes the Redis connections. */
  close(): Promise<void>;
}

/** Some events of a batch could not be published (Redis away); they are not remembered as delivered. */
export class EventsNotPublished extends Error {
  constructor(readonly count: number) {
    super(`${count} event(s) could not be published`);
  }
}

export interface EventHubDeps {
  config: Pick<Config, 'redisUrl'>;
  logger: Logger;
  /** Where its metrics are registered. */
  registry: Registry;
}

/**
 * Fans webhook events out to subscriptions: in process, or with `REDIS_URL` through Redis pub/sub
 * (one channel, a verified subscription: `redis-channel.ts`) so a webhook received by any replica
 * reaches subscribers on all (`subscribers.ts`), each once (`seen.ts`).
 */
export function createEventHub(deps: EventHubDeps, options: ListenerTimings = {}): EventHub {
  const { config, logger, registry } = deps;
  const outcomes = new Counter({
    name: 'gateway_webhook_events_total',
    help: 'Webhook events by outcome: published, duplicate (a repeat of a delivered id) or ignored (unknown kind, malformed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const subscribers = createSubscribers({ logger, registry });
  const deliver = (event: Event) => subscribers.deliver(event);

  /** How events leave this replica. */
  let publish: (event: Event) => void = deliver;
  /** While `receive` publishes: the outcome of each Redis PUBLISH, in order (in process, nothing is collected). */
  let publishing: Promise<boolean>[] | null = null;
  let publisher: Redis | null = null;
  let listener: RedisListener | null = null;
  if (config.redisUrl) {
    const redisUrl = config.redisUrl;
    publisher = redisClient(redisUrl, { connectionName: 'gateway-events-pub', commandTimeout: 1000, maxRetriesPerRequest: 2 });
    publisher.on('error', (err: Error) => logger.warn({ err }, 'events: Redis connection error'));
    const pub = publisher;
    publish = (event) => {
      const sent = pub.publish(EVENTS_TOPIC, JSON.stringify(event)).then(
        () => true,
        (err: unknown) => (logger.error({ err }, 'events: Redis PUBLISH failed'), false),
      );
      publishing?.push(sent);
    };
    listener = createRedisListener({ url: redisUrl, publisher: pub, logger, deliver, ...options });
  }

  const seen = createSeenIds({ redis: publisher, logger });

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
        if (start > 0) await subscribers.makeRoom(PUBLISH_CHUNK, deadline);
        const chunk = toPublish.slice(start, start + PUBLISH_CHUNK);
        const sent: Promise<boolean>[] = [];
        publishing = sent;
        try {
          for (const event of chunk) publish(event);
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

    subscribe: (filter) => subscribers.subscribe(filter),

    get subscriptions() {
      return subscribers.size;
    },

    async start() {
      await listener?.start();
    },

    get listening() {
      return listener ? listener.verified : true;
    },

    async whenListening(timeoutMs = LISTEN_WAIT_MS) {
      if (!listener || listener.verified) return;
      if (!(await listener.whenVerified(timeoutMs))) {
        throw gatewayError('Live events are not flowing to this server yet; subscribe again shortly.', 'UPSTREAM_UNAVAILABLE', {
          upstream: 'events',
          retryable: true,
        });
      }
    },

    async close() {
      subscribers.close();
      await Promise.all([listener?.close(), publisher ? disconnect(publisher) : undefined]);
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

