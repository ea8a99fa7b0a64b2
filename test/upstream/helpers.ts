import { readFileSync } from 'node:fs';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { createHttpClient, UpstreamError, type HttpClient, type HttpClientOptions, type RequestInfo } from '../../src/upstream/http.js';

export const ORIGIN = 'http://upstream.test';

export function fixture<T = any>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as T;
}

/** A MockAgent that refuses the network and records every call. */
export function mockAgent(): MockAgent {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  return agent;
}

/**
 * A fresh `mockAgent()` for each test of the file or `describe` block, handed to `use` before the test;
 * after it, every interceptor must have been used, and the agent is closed.
 */
export function useMockAgent(use: (agent: MockAgent) => void): void {
  let agent: MockAgent;
  beforeEach(() => {
    agent = mockAgent();
    use(agent);
  });
  afterEach(async () => {
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
}

/** A fresh `mockAgent()` for each test (as `useMockAgent`), with `setTimeout` faked: the test moves the clock, nothing waits on it. */
export function useMockAgentAndClock(use: (agent: MockAgent) => void): void {
  useMockAgent(use);
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

export function lastCall(agent: MockAgent) {
  const call = agent.getCallHistory()?.lastCall();
  if (!call) throw new Error('no call was made');
  return call;
}

export function headersOf(call: { headers: unknown }): Record<string, string> {
  const raw = call.headers as Record<string, string | string[]> | string[] | null | undefined;
  const out: Record<string, string> = {};
  if (Array.isArray(raw)) {
    for (let i = 0; i < raw.length; i += 2) out[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
  } else if (raw) {
    for (const [k, v] of Object.entries(raw)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export function testClient(agent: MockAgent, overrides: Partial<HttpClientOptions> = {}): { http: HttpClient; calls: RequestInfo[] } {
  const calls: RequestInfo[] = [];
  const http = createHttpClient({
    service: 'markets',
    baseUrl: `${ORIGIN}/markets`,
    agent,
    breaker: false,
    retry: { backoffMs: 1 },
    timeoutMs: 2_000,
    onRequest: (info) => calls.push(info),
    ...overrides,
  });
  return { http, calls };
}

/** The UpstreamError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}
