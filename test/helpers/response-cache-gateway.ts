import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { SubscriberRecord } from '../../src/simulator/alerts/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startTestGateway, type TestGateway } from './gateway.js';

/** The response cache's tests: a gateway with the cache on per test (`gw`), on one simulator (`sim`). */

export let sim: Simulator;
export let gw: TestGateway;

export const SEARCH = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId name symbol } } } }';
export const VIEWER_CHANNELS = '{ viewer { id channels { key value verified } } }';
export const VIEWER_UNREAD = '{ viewer { id unreadCount } }';

/** Upstream calls since the last reset, then reset: each step's calls are its own. */
export function callsSinceLast(): Record<string, number> {
  const counts = gw.sim.controls.counts();
  gw.sim.controls.resetCounts();
  return counts;
}

export function subscriberHeaders(subscriber: SubscriberRecord): Record<string, string> {
  return { authorization: `Bearer ${subscriber.token}`, 'x-service-client-key': gw.sim.alerts.demo.clientKey };
}

/** A subscriber other than the demo one, without an email channel. */
export function otherSubscriber(): SubscriberRecord {
  const demo = gw.sim.alerts.demo.walletAddress;
  return [...gw.sim.alerts.subscribers.values()].find((s) => s.walletAddress !== demo && !s.channels.has('EMAIL'))!;
}

export async function get(query: string, headers: Record<string, string> = {}): Promise<Response> {
  return gw.app.yoga.fetch(`http://gateway.test/graphql?query=${encodeURIComponent(query)}`, {
    headers: { accept: 'application/graphql-response+json', ...headers },
  });
}

/** A gateway with the response cache on for each test, its cache empty and the simulator's data initial. */
export function useCachedGatewayPerTest(): void {
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
  });
  afterAll(() => sim.close());
  // Each test starts with an empty cache and the simulator's initial data.
  beforeEach(async () => {
    sim.alerts.reset();
    sim.controls.reset();
    gw = await startTestGateway({ sim, config: { responseCache: true } });
  });
  afterEach(() => gw.close());
}
