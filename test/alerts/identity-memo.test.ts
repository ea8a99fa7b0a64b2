import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';

const VIEWER = '{ viewer { id walletAddress } }';

describe('the identity behind a token, remembered per token hash (AUTH_IDENTITY_TTL_MS)', () => {
  const gw = useTestGateway({ config: { authIdentityTtlMs: 60_000 }, resetControls: true });

  it('asks the alerts service once for a token however many requests and spellings use it', async () => {
    const { demo } = gw.sim.alerts;
    const spellings = [`Bearer ${demo.token}`, `bearer  ${demo.token}`];
    for (let i = 0; i < 4; i++) {
      const answer = await gw.execute(VIEWER, {}, { authorization: spellings[i % 2]!, 'x-service-client-key': demo.clientKey });
      expect(answer.data?.['viewer']?.walletAddress).toBe(demo.walletAddress);
    }
    expect(gw.sim.controls.counts()['alerts GET /v2/auth']).toBe(1);
  });

  it('never remembers a forged token: each request asks, and each is refused', async () => {
    const forged = { authorization: 'Bearer forged-token', 'x-service-client-key': gw.sim.alerts.demo.clientKey };
    for (let i = 0; i < 3; i++) {
      const answer = await gw.execute(VIEWER, {}, forged);
      expect(answer.data?.['viewer']).toBeNull();
      expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    }
    expect(gw.sim.controls.counts()['alerts GET /v2/auth']).toBe(3);
  });
});

describe('with AUTH_IDENTITY_TTL_MS=0', () => {
  const gw = useTestGateway({ config: { authIdentityTtlMs: 0 }, resetControls: true });

  it('asks on every request', async () => {
    for (let i = 0; i < 2; i++) await gw.execute(VIEWER, {}, gw.viewerHeaders);
    expect(gw.sim.controls.counts()['alerts GET /v2/auth']).toBe(2);
  });
});
