import type { YogaInitialContext } from 'graphql-yoga';
import { readCredentials, type Credentials } from './credentials.js';
import { createLoaders, type Loaders } from './loaders/index.js';
import type { Services } from './services.js';

/** What the HTTP server adds to each request's context (node's req/res under `createServer(yoga)`). */
export type ServerContext = Record<string, unknown>;

export interface Context extends YogaInitialContext {
  services: Services;
  credentials: Credentials;
  /** Per-request DataLoaders: created here for every request, never shared. */
  loaders: Loaders;
}

export function createContext(initial: YogaInitialContext, services: Services): Context {
  const credentials = readCredentials(initial.request.headers);
  return { ...initial, services, credentials, loaders: createLoaders(services, credentials, initial.request.signal) };
}
