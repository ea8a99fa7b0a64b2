import { describe, expect, it } from 'vitest';
import { VERIFY_ATTEMPTS_PER_ADDRESS } from '../../src/plugins/caller-verification.js';
import type { TestGateway } from '../helpers/gateway.js';
import { bearer, ask, sim, gateway, useRateLimitGateways } from '../helpers/rate-limit.js';

useRateLimitGateways();

/** Behind one address shared by many people (a carrier's CGNAT). */
const CARRIER = '100.64.0.1';

const AUTH = 'alerts GET /v2/auth';

/** The verification outcomes counted in `/metrics`. */
async function verifications(gw: TestGateway): Promise<Record<string, number>> {
  const metric = gw.services.registry.getSingleMetric('gateway_auth_verifications_total');
  const values = metric ? (await metric.get()).values : [];
  return Object.fromEntries(values.map((v) => [String(v.labels['outcome']), v.value]));
}

/** Two subscribers of the simulator, as their apps send them. */
function twoSubscribers() {
  const [a, b] = [...sim.alerts.subscribers.values()];
  const clientKey = sim.alerts.demo.clientKey;
  const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'x-service-client-key': clientKey });
  return { a: headers(a!.token), b: headers(b!.token) };
}

describe('rate limit behind one address (CGNAT)', () => {
  it("counts each signed-in caller by itself from its first request: A's public reads never make B refused", async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 4, authIdentityTtlMs: 60_000 } });
    const { a, b } = twoSubscribers();
    for (let i = 0; i < 4; i++) expect(await ask(gw, a, CARRIER)).toMatchObject({ status: 200, data: { __typename: 'Query' } });
    expect(await ask(gw, a, CARRIER)).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    // Same address, first request of another subscriber: its own budget.
    for (let i = 0; i < 4; i++) expect(await ask(gw, b, CARRIER)).toMatchObject({ status: 200, data: { __typename: 'Query' } });
    expect(await ask(gw, b, CARRIER)).toMatchObject({ status: 429, extensions: { code: 'RATE_LIMITED' } });
    // Nor did either spend the address's budget: an anonymous caller there still has all of it.
    for (let i = 0; i < 4; i++) expect((await ask(gw, {}, CARRIER)).status).toBe(200);
    // Each token verified once (the identity memo), not once per request.
    expect(gw.sim.controls.counts()).toEqual({ [AUTH]: 2 });
    expect(await verifications(gw)).toEqual({ verified: 2 });
  });

  it('1,000 forged tokens from one address share its one budget and cost a bounded, counted number of auth calls', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 100, authIdentityTtlMs: 60_000 } });
    const { a } = twoSubscribers();
    // A subscriber verified before the flood keeps its own budget through it.
    expect((await ask(gw, a, CARRIER)).status).toBe(200);
    gw.sim.controls.resetCounts();
    const statuses: number[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => ask(gw, bearer(`forged-${batch}-${i}`), CARRIER)));
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(900);
    expect(gw.sim.controls.counts()).toEqual({ [AUTH]: VERIFY_ATTEMPTS_PER_ADDRESS });
    expect(await verifications(gw)).toEqual({ verified: 1, refused: VERIFY_ATTEMPTS_PER_ADDRESS, skipped: 1000 - VERIFY_ATTEMPTS_PER_ADDRESS });
    // A forged token sent again is remembered as refused: no call, still the address's budget.
    gw.sim.controls.resetCounts();
    expect((await ask(gw, bearer('forged-0-0'), CARRIER)).status).toBe(429);
    expect(gw.sim.controls.counts()).toEqual({});
    expect((await ask(gw, a, CARRIER)).status).toBe(200);
  });

  it('asks nothing to count a caller when the identity memo is off (AUTH_IDENTITY_TTL_MS=0)', async () => {
    const gw = await gateway({ config: { rateLimitPerMinute: 2, authIdentityTtlMs: 0 } });
    const { a } = twoSubscribers();
    for (let i = 0; i < 2; i++) expect((await ask(gw, a, CARRIER)).status).toBe(200);
    expect((await ask(gw, a, CARRIER)).status).toBe(429);
    expect(gw.sim.controls.counts()).toEqual({});
  });
});
