import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Target } from '../../src/simulator/controls.js';
import type { GraphQLResponse } from '../helpers/gateway.js';
import { type Harness, startHarness, callsTo, hits, disconnectDuring } from '../helpers/disconnect-harness.js';

describe('caller aborts and the circuit breaker', () => {
  let h: Harness;
  const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };

  beforeAll(async () => {
    // Opens once more than 10 % of the calls of the last minute failed (from the third call on): a breaker
    // that counted the aborts would open at the first.
    h = await startHarness({
      upstream: { breaker: { volumeThreshold: 3, errorThresholdPercentage: 10, resetTimeoutMs: 60_000, rollingCountTimeoutMs: 60_000 } },
    });
  });
  afterAll(() => h.close());

  it('stays closed after 12 caller aborts, and still opens on upstream failures', async () => {
    const wallet = h.gw.sim.world.demoWallets[0]!;
    const query = `{ wallet(address: "${wallet}") { totalValueUsd } }`;
    // The markets breaker has already counted the market index's 4 listing pages, all answered.
    expect(h.calls.map((c) => `${c.route} ${c.status}`)).toEqual(Array(4).fill('GET /v0/markets 200'));
    h.gw.sim.controls.setFault(target, { hang: true });
    for (let n = 1; n <= 12; n++) {
      await disconnectDuring(h, target, query, n);
      // Each abandoned call is settled before the next request, which would otherwise join it while it is still listed.
      await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(n), { timeout: 30_000 });
    }
    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(12));
    expect(callsTo(h, target).filter((c) => c.errorCode === 'ABORTED')).toHaveLength(12);

    h.gw.sim.controls.setFault(target, null);
    const answer = (await h.post(query)) as GraphQLResponse;
    expect(answer.errors).toBeUndefined();
    expect(hits(h, target)).toBe(13);
    expect(h.breakerStates).toEqual([]);

    // The same breaker opens on the upstream's own failures: 1 of 18 calls is 5.6 %, 2 of 19 pass 10 %; the third request makes no call.
    h.gw.sim.controls.setFault(target, { status: 503 });
    for (let n = 0; n < 3; n++) {
      expect(((await h.post(query)) as GraphQLResponse).errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    }
    expect(h.breakerStates).toEqual(['open']);
    expect(hits(h, target)).toBe(15);
    expect(callsTo(h, target).map((c) => c.errorCode ?? c.status).slice(12)).toEqual([200, 503, 503, 'EOPENBREAKER']);
    expect(h.calls).toHaveLength(4 + 16);
  });
});
