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
  const own = (credentials as { readonly key?: unknown }).key;
  if (typeof own === 'string') return own;
  let key = keys.get(credentials);
  if (key === undefined) keys.set(credentials, (key = credentialsDigest(credentials)));
  return key;
}

/** The SHA-256 of everything the alerts service identifies a subscriber by. */
export function credentialsDigest(credentials: SubscriberCredentials): string {
  return sha256(`${credentials.authorization}\n${credentials.clientKey ?? ''}`, 'hex');
}

/**
 * Each credentials object's key, made once: a request reads its caller once (`useRequestDecisions`), and the
 * response cache, the collapse of identical work, the rate limit, the identity lookup and the alerts
 * client's shared reads all ask for it.
 */
const keys = new WeakMap<SubscriberCredentials, string>();
