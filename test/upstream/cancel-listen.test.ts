import { getEventListeners } from 'node:events';
import type { MockAgent } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { LISTEN_AFTER_MS } from '../../src/upstream/transport/cancel.js';
import { ORIGIN, testClient, useMockAgentAndClock } from './helpers.js';

/**
 * A caller's signal is listened to only by its calls that run for a while: a call answered at once adds
 * no listener to it, a longer one gets one (one per signal, whatever its calls), and an abort ends the
 * call either way. The check's timer is faked: the test moves the clock, nothing waits on it.
 */

let agent: MockAgent;
useMockAgentAndClock((created) => (agent = created));

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
const markets = () => agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/markets'), method: 'GET' });

describe("a call's caller signal", () => {
  it('is not listened to by calls answered before the check', async () => {
    markets().reply(200, { markets: [] }).times(3);
    const { http } = testClient(agent);
    const signal = new AbortController().signal;
    const answers = await Promise.all([1, 2, 3].map((i) => http.get(`/v0/markets/${i}`, { scope: { signal } })));
    expect(answers).toEqual([{ markets: [] }, { markets: [] }, { markets: [] }]);
    expect(listeners(signal)).toBe(0);
    // The check, when it comes, finds no call of this signal still running.
    await vi.advanceTimersByTimeAsync(2 * LISTEN_AFTER_MS);
    expect(listeners(signal)).toBe(0);
  });

  it('is listened to, once, by calls still running at the check, and its abort then ends them at once', async () => {
    markets().reply(200, { markets: [] }).delay(60_000).times(3);
    const { http, calls } = testClient(agent, { timeoutMs: 120_000 });
    const controller = new AbortController();
    const running = [1, 2, 3].map((i) => http.get(`/v0/markets/${i}`, { scope: { signal: controller.signal } }).catch((e: unknown) => e));
    expect(listeners(controller.signal)).toBe(0);
    await vi.advanceTimersByTimeAsync(2 * LISTEN_AFTER_MS);
    expect(listeners(controller.signal)).toBe(1);

    controller.abort();
    for (const error of await Promise.all(running)) expect(error).toMatchObject({ code: 'ABORTED', retryable: false });
    expect(calls.map((c) => c.errorCode)).toEqual(['ABORTED', 'ABORTED', 'ABORTED']);
  });

  it('ends a young call its caller abandoned at the check, without a listener', async () => {
    markets().reply(200, { markets: [] }).delay(60_000);
    const { http, calls } = testClient(agent, { timeoutMs: 120_000 });
    const controller = new AbortController();
    const running = http.get('/v0/markets/1', { scope: { signal: controller.signal } }).catch((e: unknown) => e);
    controller.abort();
    await vi.advanceTimersByTimeAsync(2 * LISTEN_AFTER_MS);
    expect(await running).toMatchObject({ code: 'ABORTED' });
    expect(calls).toMatchObject([{ errorCode: 'ABORTED', attempts: 1 }]);
    expect(listeners(controller.signal)).toBe(0);
  });
});
