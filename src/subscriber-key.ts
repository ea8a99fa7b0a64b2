import { sha256 } from './hashing.js';
import type { SubscriberCredentials } from './upstream/alerts/client-types.js';

/**
 * A subscriber's name wherever the gateway keys something by caller (its response cache entries, its
 * rate-limit count, its identical reads in flight): the SHA-256 of everything the alerts service
 * identifies them by, never the credentials themselves. In a file of its own, which the alerts client
 * imports too, so that it keys its shared reads by the name the request already made (credentials.ts
 * re-exports it; the client cannot import credentials.ts, which imports the clients' types).
 */
export function subscriberKey(credentials: SubscriberCredentials): string {
  // Credentials read from a request's headers keep their key themselves (credentials.ts): no WeakMap entry per request.
  if (credentials instanceof KeyedCredentials) return credentials.key;
  let key = keys.get(credentials);
  if (key === undefined) keys.set(credentials, (key = credentialsDigest(credentials)));
  return key;
}

/** The SHA-256 of everything the alerts service identifies a subscriber by. */
function credentialsDigest(credentials: SubscriberCredentials): string {
  return sha256(`${credentials.authorization}\n${credentials.clientKey ?? ''}`, 'hex');
}

/**
 * Each credentials object's key, made once: a request reads its caller once (`useRequestDecisions`), and the
 * response cache, the collapse of identical work, the rate limit, the identity lookup and the alerts
 * client's shared reads all ask for it.
 */
const keys = new WeakMap<SubscriberCredentials, string>();

/**
 * Credentials that keep what is made of them once in private fields (their key, and one holder's
 * object: the alerts client's headers), rather than in WeakMap entries for each request's new object.
 * Its own properties are those of a plain object.
 */
export abstract class KeyedCredentials implements SubscriberCredentials {
  abstract readonly authorization: string;
  declare readonly clientKey?: string;
  #key: string | undefined;
  #holder: object | undefined;
  #held: unknown;

  get key(): string {
    return (this.#key ??= credentialsDigest(this));
  }

  /** What `holder` makes of these credentials, made once while it is the last holder to ask. */
  heldBy<T>(holder: object, make: (credentials: this) => T): T {
    if (this.#holder !== holder) {
      this.#held = make(this);
      this.#holder = holder;
    }
    return this.#held as T;
  }
}
