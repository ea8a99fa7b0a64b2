import type { Registry } from 'prom-client';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Upstream } from './upstream/index.js';

/**
 * What every long-lived part of the gateway is built from (the stores, the event hub). Apart from
 * `services.ts`, which builds those parts from it, so that they need not import what they are part of.
 */
export interface ServiceDeps {
  config: Readonly<Config>;
  logger: Logger;
  upstream: Upstream;
  registry: Registry;
}
