import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { redisClient } from '../redis-client.js';
import type { Logger } from '../logger.js';
import type { Event } from './model.js';

/** The one pub/sub topic; each subscriber filters by kind and asset. */
export const EVENTS_TOPIC = 'gateway:events';

/** QUIT when connected (pending replies arrive first); otherwise drop the connection at once rather than queue. */
export async function disconnect(client: Redis): Promise<void> {
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

/** This replica's subscription to the events channel, as `createRedisListener` returns it. */
export type RedisListener = ReturnType<typeof createRedisListener>;

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
export function createRedisListener<T = Event>(
  options: ListenerTimings & {
    url: string;
    publisher: Redis;
    logger: Logger;
    deliver: (message: T) => void;
    topic?: string;
    name?: string;
    /** Called after every SUBSCRIBE that succeeded (the first, and each after a reconnect): messages before it may have been missed. */
    onSubscribed?: () => void;
  },
) {
  const { url, publisher, logger, deliver } = options;
  // The live price feed listens the same way on a channel of its own (stores/live-prices/).
  const topic = options.topic ?? EVENTS_TOPIC;
  const connectionName = options.name ?? 'gateway-events-sub';
  const verifyEveryMs = options.verifyEveryMs ?? 5000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 1000;
  const subscribe = async (client: Redis) => {
    await client.subscribe(topic);
    options.onSubscribed?.();
  };
  const probes = new Map<string, () => void>();
  let verified = false;
  let closed = false;
  let checking: Promise<void> | null = null;
  let waiters: (() => void)[] = [];
  let timer: NodeJS.Timeout | null = null;

  const onMessage = (channel: string, message: string) => {
    if (channel !== topic) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const probe = (parsed as { probe?: unknown }).probe;
    if (typeof probe === 'string') probes.get(probe)?.();
    else deliver(parsed as T);
  };
  const connect = () => {
    // ioredis's own re-subscription on reconnect leaves a refused SUBSCRIBE unhandled (which would end
    // the process): this connection subscribes again itself on every reconnect, and the probe checks it.
    const client = redisClient(url, { connectionName, maxRetriesPerRequest: null, disableClientInfo: true, autoResubscribe: false });
    client.on('error', (err: Error) => logger.warn({ err }, 'events: Redis subscriber connection error'));
    client.on('message', onMessage);
    let connectedBefore = false;
    client.on('ready', () => {
      if (connectedBefore) void subscribe(client).catch((err: unknown) => logger.warn({ err }, 'events: could not subscribe again after a reconnect'));
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
      await publisher.publish(topic, JSON.stringify({ probe: nonce }));
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
        await subscribe(subscriber);
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
