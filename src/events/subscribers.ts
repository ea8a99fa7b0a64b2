import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { Counter, Gauge, type Registry } from 'prom-client';
import { gatewayError } from '../errors.js';
import type { Logger } from '../logger.js';
import { matchesFilter, type Event, type EventFilter } from './model.js';
import { SubscriberQueue } from './queue.js';

/**
 * Events a subscriber may fall behind by. One more, and it is dropped: its stream ends with a
 * `RATE_LIMITED` error (`reason: "SUBSCRIBER_TOO_SLOW"`), and it may subscribe again.
 */
export const SUBSCRIBER_QUEUE = 1024;

interface Subscriber {
  filter: EventFilter;
  queue: SubscriberQueue<Event>;
}

/**
 * This replica's event subscriptions. Each has a queue of `SUBSCRIBER_QUEUE` events: memory stays
 * bounded whoever stops reading, and one that falls further behind is dropped.
 */
export interface Subscribers {
  /** Hands an event to every subscription whose filter it matches. */
  deliver(event: Event): void;
  /** The events matching `filter` from now on; ends at once once the subscribers are closed. */
  subscribe(filter: EventFilter): AsyncIterableIterator<Event>;
  /**
   * Yields to the event loop, then waits until every subscription has room for `room` more events or
   * `deadline` passes; those still without room then have fallen behind and are dropped.
   */
  makeRoom(room: number, deadline: number): Promise<void>;
  readonly size: number;
  /** Ends every open subscription, and every later one at once. */
  close(): void;
}

export function createSubscribers({ logger, registry }: { logger: Logger; registry: Registry }): Subscribers {
  const gauge = new Gauge({ name: 'gateway_event_subscriptions', help: 'Event subscriptions open on this replica.', registers: [registry] });
  const drops = new Counter({
    name: 'gateway_event_subscribers_dropped_total',
    help: `Event subscriptions closed because they fell more than ${SUBSCRIBER_QUEUE} events behind.`,
    registers: [registry],
  });
  const subscribers = new Set<Subscriber>();
  let closed = false;

  const drop = (subscriber: Subscriber) => {
    drops.inc();
    logger.warn({ queue: SUBSCRIBER_QUEUE }, 'events: subscriber fell behind; its subscription is closed');
    subscriber.queue.fail(
      gatewayError(`This subscription fell more than ${SUBSCRIBER_QUEUE} events behind and was closed; subscribe again.`, 'RATE_LIMITED', {
        reason: 'SUBSCRIBER_TOO_SLOW',
      }),
    );
  };

  return {
    deliver(event) {
      for (const subscriber of subscribers) {
        if (matchesFilter(event, subscriber.filter) && !subscriber.queue.offer(event)) drop(subscriber);
      }
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

    async makeRoom(room, deadline) {
      await yieldToLoop();
      const behind = () => [...subscribers].filter((s) => s.queue.length > SUBSCRIBER_QUEUE - room);
      while (behind().length > 0 && Date.now() < deadline) await sleep(5);
      for (const subscriber of behind()) drop(subscriber);
    },

    get size() {
      return subscribers.size;
    },

    close() {
      closed = true;
      for (const { queue } of [...subscribers]) queue.end();
    },
  };
}
