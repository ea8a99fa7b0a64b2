import { createHash } from 'node:crypto';
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

export function readCredentials(headers: Headers): Credentials {
  const authorization = headers.get('authorization')?.trim() || null;
  const clientKey = headers.get('x-service-client-key')?.trim() || null;
  const apiKey = headers.get('x-service-api-key')?.trim() || null;
  return {
    subscriber: authorization ? { authorization, ...(clientKey ? { clientKey } : {}) } : null,
    apiKey,
  };
}

/**
 * A subscriber's name wherever the gateway keys something by caller (its response cache entries, its
 * rate-limit count): the SHA-256 of everything the alerts service identifies them by, never the
 * credentials themselves.
 */
export function subscriberKey({ authorization, clientKey }: SubscriberCredentials): string {
  return createHash('sha256').update(`${authorization}\n${clientKey ?? ''}`).digest('hex');
}

/**
 * A subscriber read or change asked of a request that carries no `Authorization` header. Thrown
 * before any upstream call; `maskError` (errors.ts) answers it with `UNAUTHENTICATED`.
 */
export class MissingCredentialsError extends Error {
  constructor() {
    super('The request carries no subscriber credentials.');
    this.name = 'MissingCredentialsError';
  }
}
