import type { MockAgent } from 'undici';
import { createUpstream, type UpstreamConfig } from '../../src/upstream/index.js';
import { headersOf, lastCall, ORIGIN, useMockAgent } from '../upstream/helpers.js';

/** The upstream clients' tests: one MockAgent per test (`agent`), the upstream on it, and the last call it saw. */
export let agent: MockAgent;

/** A fresh MockAgent in `agent` for each test of the file. */
export function useClientsAgent(): void {
  useMockAgent((created) => (agent = created));
}

export const json = { headers: { 'content-type': 'application/json' } };
export const anyPath = () => true;
export const creds = { authorization: 'Bearer caller-token', clientKey: 'caller-client-key' };

export function upstream(overrides: Partial<UpstreamConfig> = {}) {
  return createUpstream({
    alertsUrl: `${ORIGIN}/alerts`,
    marketsUrl: `${ORIGIN}/markets`,
    assetsUrl: `${ORIGIN}/assets`,
    serviceClientKey: 'gateway-key',
    agent,
    breaker: false,
    ...overrides,
  });
}

export function call() {
  const c = lastCall(agent);
  const url = new URL(c.fullUrl);
  return { method: c.method, path: c.path, query: Object.fromEntries(url.searchParams), rawQuery: url.search, headers: headersOf(c), body: c.body };
}
