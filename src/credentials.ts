import { KeyedCredentials } from './subscriber-key.js';
import type { SubscriberCredentials } from './upstream/index.js';

/**
 * The caller's own credentials, read from this request's headers. They go to the alerts service's
 * subscriber calls (`subscriber`) and its send call (`apiKey`) and nowhere else, and never into a log.
 */
export interface Credentials {
  /** `null` when the request carries no `Authorization` header. */
  subscriber: SubscriberCredentials | null;
  /** `X-Service-Api-Key`, for `sendNotification` only. */
  apiKey: string | null;
}

export function readCredentials(headers: Pick<Headers, 'get'>): Credentials {
  const authorization = normalizeAuthorization(headers.get('authorization'));
  const clientKey = headers.get('x-service-client-key')?.trim() || null;
  const apiKey = headers.get('x-service-api-key')?.trim() || null;
  return { subscriber: authorization ? new ReadSubscriber(authorization, clientKey) : null, apiKey };
}

/**
 * Subscriber credentials as a request's headers carry them, their key and the alerts client's
 * headers kept once made (`KeyedCredentials`): a WeakMap entry for each request's new object cost as
 * much as the hash itself on a cached hit's path (bench/PHASES.md, "cached hit").
 */
class ReadSubscriber extends KeyedCredentials {
  constructor(
    readonly authorization: string,
    clientKey: string | null,
  ) {
    super();
    if (clientKey) (this as { clientKey?: string }).clientKey = clientKey;
  }
}

/**
 * One spelling per token: surrounding white space dropped, and a Bearer scheme in any case, followed by
 * any white space, written `Bearer <token>` (RFC 9110: the scheme is case-insensitive). The same token
 * spelled two ways is one caller to the cache and the rate limit, and one line to the upstream.
 */
function normalizeAuthorization(value: string | null): string | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  const bearer = /^bearer\s+(\S+)$/i.exec(trimmed);
  return bearer ? `Bearer ${bearer[1]}` : trimmed;
}

/** A subscriber's name wherever the gateway keys something by caller (subscriber-key.ts). */
export { subscriberKey } from './subscriber-key.js';

/**
 * A call that needs credentials the request does not carry: a subscriber read or change without an
 * `Authorization` header, or a send without `X-Service-Api-Key`. Thrown by the alerts data source
 * (sources/alerts.ts) before any upstream call; `maskError` (errors.ts) answers it with `UNAUTHENTICATED`.
 */
export class MissingCredentialsError extends Error {
  constructor(readonly needed: 'subscriber' | 'apiKey' = 'subscriber') {
    super(needed === 'subscriber' ? 'The request carries no subscriber credentials.' : 'The request carries no app key.');
    this.name = 'MissingCredentialsError';
  }
}
