import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
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

interface Subscriber {
  filter: EventFilter;
  queue: SubscriberQueue<Event>;
}

/**
 * Fans webhook events out to subscriptions: in process, or with `REDIS_URL` through Redis pub/sub
 * (one channel, a verified subscription: `createRedisListener`) so a webhook received by any replica
 * reaches subscribers on all. Each
 * subscriber has a queue of `SUBSCRIBER_QUEUE` events: memory stays bounded whoever stops reading.
 */
export function createEventHub(deps: ServiceDeps, options: ListenerTimings = {}): EventHub {
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

  /** How events leave this replica. */
  let publish: (event: Event) => void = deliver;
  /** While `receive` publishes: the outcome of each Redis PUBLISH, in order (in process, nothing is collected). */
  let publishing: Promise<boolean>[] | null = null;
  let publisher: Redis | null = null;
  let listener: ReturnType<typeof createRedisListener> | null = null;
  if (config.redisUrl) {
    const redisUrl = config.redisUrl;
    publisher = new Redis(redisUrl, { connectionName: 'gateway-events-pub', commandTimeout: 1000, maxRetriesPerRequest: 2 });
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

    subscribe(filter) {
      const entry: Subscriber = {
        filter,
        queue: new SubscriberQueue<Event>(SUBSCRIBER_QUEUE, () => {
          subscribers.delete(entry);
          gauge.dec();
        }),
      };
      gauge.inc();
      if (closed) {
        entry.queue.end();
        return entry.queue;
      }
      subscribers.add(entry);
      return entry.queue;
    },

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
      closed = true;
      for (const { queue } of [...subscribers]) queue.end();
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

export interface ListenerTimings {
  /** How often the subscription to the events channel is verified by a probe. Default 5 s. */
  verifyEveryMs?: number;
  /** How long a probe may take to come back before the subscription counts as broken. Default 1 s. */
  probeTimeoutMs?: number;
}

/**
 * This replica's subscription to the events channel, on a connection of its own, checked rather than
 * trusted. ioredis 5 can leave a connection that subscribes while it connects in a broken subscriber
 * mode, deaf for good (ioredis#2037; 5.11.1, the last 5.x, still has it; fixed in ioredis 6). So:
 * the connection skips the CLIENT SETINFO handshake (the reported workaround),
 * SUBSCRIBE is sent only once the connection is ready, and the subscription is verified by a probe,
 * a message this replica publishes on the channel and must hear back, at start and then every
 * `verifyEveryMs`. A probe published but not heard means the subscription is broken: the connection is
 * replaced and subscribes again. A probe that cannot be published means Redis is away: nothing can be
 * heard or sent, and the connection subscribes again when it returns (the next probe checks it did).
 */
function createRedisListener(options: ListenerTimings & { url: string; publisher: Redis; logger: Logger; deliver: (event: Event) => void }) {
  const { url, publisher, logger, deliver } = options;
  const verifyEveryMs = options.verifyEveryMs ?? 5000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 1000;
  const probes = new Map<string, () => void>();
  let verified = false;
  let closed = false;
  let checking: Promise<void> | null = null;
  let waiters: (() => void)[] = [];
  let timer: NodeJS.Timeout | null = null;

  const onMessage = (channel: string, message: string) => {
    if (channel !== EVENTS_TOPIC) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const probe = (parsed as { probe?: unknown }).probe;
    if (typeof probe === 'string') probes.get(probe)?.();
    else deliver(parsed as Event);
  };
  const connect = () => {
    // ioredis's own re-subscription on reconnect leaves a refused SUBSCRIBE unhandled (which would end
    // the process): this connection subscribes again itself on every reconnect, and the probe checks it.
    const client = new Redis(url, { connectionName: 'gateway-events-sub', maxRetriesPerRequest: null, disableClientInfo: true, autoResubscribe: false });
    client.on('error', (err: Error) => logger.warn({ err }, 'events: Redis subscriber connection error'));
    client.on('message', onMessage);
    let connectedBefore = false;
    client.on('ready', () => {
      if (connectedBefore) void client.subscribe(EVENTS_TOPIC).catch((err: unknown) => logger.warn({ err }, 'events: could not subscribe again after a reconnect'));
      connectedBefore = true;
    });
    return client;
  };
  let subscriber = connect();

  const setVerified = (value: boolean) => {
    verified = value;
    if (!value) return;
    for (const wake of waiters) wake();
    waiters = [];
  };

  /** Publishes a probe and waits for it: `heard`, `deaf` (published, not heard) or `unreachable`. */
  const probe = async (): Promise<'heard' | 'deaf' | 'unreachable'> => {
    const nonce = randomUUID();
    let timeout: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      probes.set(nonce, () => resolve(true));
      timeout = setTimeout(() => resolve(false), probeTimeoutMs);
    });
    try {
      await publisher.publish(EVENTS_TOPIC, JSON.stringify({ probe: nonce }));
      return (await heard) ? 'heard' : 'deaf';
    } catch {
      return 'unreachable';
    } finally {
      clearTimeout(timeout);
      probes.delete(nonce);
    }
  };

  /** Until verified: wait for the connection, SUBSCRIBE, probe; a deaf connection is replaced. */
  const establish = async () => {
    for (let attempt = 0; !closed; attempt++) {
      try {
        await untilReady(subscriber, 2000);
        await subscriber.subscribe(EVENTS_TOPIC);
        const outcome = await probe();
        if (outcome === 'heard') return setVerified(true);
        if (outcome === 'deaf') {
          logger.error('events: the Redis subscription hears nothing; subscribing again on a new connection');
          subscriber.disconnect();
          subscriber = connect();
        }
      } catch (err) {
        logger.warn({ err }, 'events: could not subscribe to the events channel yet');
      }
      await sleep(Math.min(100 * 2 ** attempt, 2000));
    }
  };

  const check = async () => {
    const outcome = await probe();
    if (outcome === 'heard' || closed) return setVerified(outcome === 'heard' || verified);
    if (outcome === 'unreachable') return; // Redis away: nothing to hear; ioredis subscribes again on its return
    setVerified(false);
    logger.error('events: the Redis subscription went deaf; subscribing again on a new connection');
    subscriber.disconnect();
    subscriber = connect();
    await establish();
  };

  return {
    get verified() {
      return verified;
    },
    async start() {
      await (checking ??= establish().finally(() => (checking = null)));
      if (closed) return;
      timer ??= setInterval(() => void (checking ??= check().finally(() => (checking = null))), verifyEveryMs);
      timer.unref();
    },
    whenVerified(timeoutMs: number): Promise<boolean> {
      if (verified) return Promise.resolve(true);
      return new Promise((resolve) => {
        const wake = () => (clearTimeout(giveUp), resolve(true));
        const giveUp = setTimeout(() => ((waiters = waiters.filter((w) => w !== wake)), resolve(false)), timeoutMs);
        waiters.push(wake);
      });
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await disconnect(subscriber);
    },
  };
}

/** Resolves when the connection is ready (its handshake done); rejects after `timeoutMs`. */
function untilReady(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => (client.off('ready', ready), reject(new Error(`Redis not ready within ${timeoutMs} ms`))), timeoutMs);
    const ready = () => (clearTimeout(timeout), resolve());
    client.once('ready', ready);
  });
}
