import type { YogaInitialContext } from 'graphql-yoga';
import { createLoaders, type Loaders } from './loaders/index.js';
import type { Services } from './services.js';
import type { SubscriberCredentials } from './upstream/index.js';

/** What the HTTP server adds to each request's context (node's req/res under `createServer(yoga)`). */
export type ServerContext = Record<string, unknown>;

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

export interface Context extends YogaInitialContext {
  services: Services;
  credentials: Credentials;
  /** Per-request DataLoaders: created here for every request, never shared. */
  loaders: Loaders;
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

export function createContext(initial: YogaInitialContext, services: Services): Context {
  const credentials = readCredentials(initial.request.headers);
  return { ...initial, services, credentials, loaders: createLoaders(services, credentials, initial.request.signal) };
}
