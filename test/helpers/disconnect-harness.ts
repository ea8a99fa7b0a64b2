import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import type { Target } from '../../src/simulator/controls.js';
import type { BreakerState, RequestInfo } from '../../src/upstream/index.js';
import { SECRET } from '../events/helpers.js';
import { startTestGateway, type GraphQLResponse, type TestGateway, type TestGatewayOptions } from './gateway.js';
import { nodeListener } from '../../src/node-http.js';

/**
 * The cancellation tests' harness: a gateway on a real port whose client can go away mid-request (it
 * abandons the upstream reads made for it alone; writes and shared fetches run on), recording every call.
 */

export const SOL = 'solana:So11111111111111111111111111111111111111112';
export const JUP = 'solana:JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
export const FROM = '2025-11-01T00:00:00Z';
export const TO = '2025-11-03T00:00:00Z';
/** Far beyond any wait of these tests: a call that ends sooner was ended by the client's abort, not by its deadline. */
export const DEADLINE_MS = 60_000;

export interface Harness {
  gw: TestGateway;
  /** Every upstream call as the `onRequest` hook reported it, in the order they ended. */
  calls: RequestInfo[];
  breakerStates: BreakerState[];
  /** POSTs a GraphQL request over a real socket; `signal` cuts the connection. Settles with `'disconnected'` then. */
  post(query: string, options?: { signal?: AbortSignal; headers?: Record<string, string> }): Promise<GraphQLResponse | 'disconnected'>;
  close(): Promise<void>;
}

/** The gateway on a real port (disconnecting is about HTTP), recording every upstream call. */
export async function startHarness(options: TestGatewayOptions = {}): Promise<Harness> {
  const calls: RequestInfo[] = [];
  const breakerStates: BreakerState[] = [];
  const gw = await startTestGateway({
    ...options,
    config: { upstreamTimeoutMs: DEADLINE_MS, assetsTimeoutMs: DEADLINE_MS, ...options.config },
    upstream: {
      onRequest: (info) => calls.push(info),
      onBreakerStateChange: (_service, state) => breakerStates.push(state),
      ...options.upstream,
    },
  });
  const server = createServer(nodeListener(gw.app.yoga));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;

  return {
    gw,
    calls,
    breakerStates,
    async post(query, { signal, headers } = {}) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
          body: JSON.stringify({ query }),
          signal: signal ?? null,
        });
        return { status: response.status, ...((await response.json()) as Omit<GraphQLResponse, 'status'>) };
      } catch (error) {
        if (signal?.aborted) return 'disconnected';
        throw error;
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gw.close();
    },
  };
}

const routeOf = (target: Target): string => target.route!.replace(/:id\b/, '{id}').replace(/:appId\b/, '{appId}');
export const callsTo = (h: Harness, target: Target) => h.calls.filter((c) => c.service === target.service && c.route === routeOf(target));
export const hits = (h: Harness, target: Target) => h.gw.sim.controls.count(target.service, target.route);

/** Sends `query`, waits until the simulator has seen `calls` requests on `target`, then disconnects. */
export async function disconnectDuring(h: Harness, target: Target, query: string, calls: number, headers?: Record<string, string>) {
  const client = new AbortController();
  const answer = h.post(query, { signal: client.signal, ...(headers ? { headers } : {}) });
  // The wait is for an order of events, not a speed: a busy machine may take seconds to reach the call.
  await vi.waitFor(() => expect(hits(h, target)).toBe(calls), { timeout: 30_000 });
  client.abort();
  expect(await answer).toBe('disconnected');
}

export let h: Harness;
export let wallet: string;
export let marketId: string;

/** One harness (`h`) for the enclosing block, its simulator's faults and recorded calls reset after each test. */
export function useDisconnectHarness(): void {
  beforeAll(async () => {
    h = await startHarness({ config: { webhookSecret: SECRET } });
    wallet = h.gw.sim.world.demoWallets[0]!;
    marketId = h.gw.sim.world.markets.find((m) => m.type === 'lending')!.id;
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.gw.sim.controls.reset();
    h.gw.sim.controls.setRandom(Math.random);
    h.calls.length = 0;
  });
}
