import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startTestGateway, type TestGateway } from './gateway.js';

/**
 * The rate limit's tests: requests from a given peer address, the demo subscriber's verification, and
 * gateways on one simulator (`sim`), each closed after its test.
 */

export const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-service-client-key': 'ck_any' });

/** One `{ __typename }` over HTTP (in memory), from a client at `address` (the socket's peer): status, Retry-After and the error's extensions. */
export async function ask(gw: TestGateway, headers: Record<string, string> = {}, address = '203.0.113.7') {
  const response = await gw.app.yoga.fetch(
    'http://gateway.test/graphql',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: JSON.stringify({ query: '{ __typename }' }),
    },
    { req: peer(address, headers) },
  );
  const body = (await response.json()) as { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), data: body.data, extensions: body.errors?.[0]?.extensions };
}

/** The node request a server would hand Yoga: the socket's peer address and the headers as received. */
export function peer(address: string, headers: Record<string, string> = {}) {
  return { socket: { remoteAddress: address }, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
}

/** Has the alerts service verify the demo subscriber's token (a viewer query), as a screen's first request does. */
export async function verify(gw: TestGateway, headers: Record<string, string>, address = '203.0.113.7') {
  const response = await gw.app.yoga.fetch(
    'http://gateway.test/graphql',
    { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ viewer { id } }' }) },
    { req: peer(address, headers) },
  );
  expect(((await response.json()) as { data: { viewer: { id: string } | null } }).data.viewer).not.toBeNull();
}

export let sim: Simulator;
export const gateways: TestGateway[] = [];

export async function gateway(config: Parameters<typeof startTestGateway>[0] = {}) {
  const gw = await startTestGateway({ sim, ...config });
  gateways.push(gw);
  return gw;
}

/** Starts the file's simulator and closes after each test the gateways it started. */
export function useRateLimitGateways(): void {
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gw) => gw.close()));
  });
  afterAll(() => sim.close());
}
