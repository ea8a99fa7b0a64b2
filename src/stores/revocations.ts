import type { Redis } from 'ioredis';
import { countedCache } from '../held.js';
import { createRedisListener, type ListenerTimings } from '../events/redis-channel.js';
import type { Logger } from '../logger.js';
import { HASH_ENTRY_BYTES, type VerifiedCallers } from './verified-callers.js';

/** The channel on which a replica tells the others which credentials the alerts service refused. */
export const REVOCATIONS_TOPIC = 'gateway:revoked';

/** Refusals not yet told to the other replicas held at most; past it the oldest is dropped, and the others believe that identity until their memo's TTL. */
export const UNTOLD_MAX = 10_000;

/** A credentials hash as `subscriberKey` makes it (SHA-256, hex): nothing else from the channel is acted on. */
const CREDENTIALS_HASH = /^[0-9a-f]{64}$/;

export interface RevocationsOptions extends ListenerTimings {
  url: string;
  /** The shared client, which publishes (a subscribing connection cannot). */
  publisher: Redis;
  logger: Logger;
  /** How long a replica may believe an identity (`AUTH_IDENTITY_TTL_MS`): a refusal not yet told is retried that long. */
  ttlMs: number;
}

export interface SharedRevocations {
  /** The memo to use: forgetting an identity here makes every replica forget it. */
  verifiedCallers: VerifiedCallers;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The identity memo lives in each process: a replica that has not itself seen the alerts service refuse
 * a token would believe its identity for up to `AUTH_IDENTITY_TTL_MS`. So a refusal is published (the
 * credentials' hash, never the token) and every replica forgets that identity on receipt. A message
 * missed while a replica's subscription was down is covered by forgetting every identity each time the
 * subscription is (re)established: that costs one `GET /v2/auth` per caller, while checking a Redis key
 * on every memo hit would cost a round trip on every request that reads the viewer. A refusal this
 * replica could not publish is published when its connection is back (within the memo's lifetime).
 */
export function shareRevocations(local: VerifiedCallers, options: RevocationsOptions): SharedRevocations {
  const { publisher, logger } = options;
  const listener = createRedisListener<{ revoked?: unknown }>({
    ...options,
    topic: REVOCATIONS_TOPIC,
    name: 'gateway-revocations-sub',
    deliver(message) {
      if (typeof message.revoked === 'string' && CREDENTIALS_HASH.test(message.revoked)) local.forgetIdentity(message.revoked);
    },
    onSubscribed: () => local.forgetAllIdentities(),
  });
  // Refusals this replica could not publish (its connection down while the others' may be up): told again
  // when it is back. Bounded in count and so in bytes, reported as `untold_revocations`.
  const untold = countedCache<string, true>({ name: 'untold_revocations', max: UNTOLD_MAX, ttl: Math.max(1, options.ttlMs), entryBytes: HASH_ENTRY_BYTES });
  const tell = (hash: string) =>
    publisher.publish(REVOCATIONS_TOPIC, JSON.stringify({ revoked: hash })).then(
      () => void untold.delete(hash),
      (err: unknown) => {
        // Once per token: a revoked token retried while Redis is away would otherwise log each refusal.
        if (!untold.has(hash)) logger.warn({ err }, 'revocations: could not tell the other replicas of a refused token yet');
        untold.set(hash, true);
      },
    );
  const retell = () => {
    for (const hash of [...untold.keys()]) void tell(hash);
  };
  publisher.on('ready', retell);
  return {
    verifiedCallers: {
      ...local,
      forgetIdentity(hash) {
        local.forgetIdentity(hash);
        void tell(hash);
      },
    },
    start: () => listener.start(),
    async close() {
      publisher.off('ready', retell);
      await listener.close();
    },
  };
}
