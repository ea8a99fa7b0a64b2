import { describe, expect, it, vi } from 'vitest';
import type { Target } from '../../src/simulator/controls.js';
import { SOL, FROM, TO, callsTo, hits, disconnectDuring, h, wallet, marketId, useDisconnectHarness } from '../helpers/disconnect-harness.js';

describe('a client that disconnects', () => {
  useDisconnectHarness();

  const viewer = () => h.gw.viewerHeaders;
  // `answered`: calls of the route let through before the hang (the rest hang until aborted).
  const cases: { name: string; target: Target; query: () => string; answered?: number; aborted: number; subscriber?: boolean }[] = [
    {
      name: 'positions (byWallet)',
      target: { service: 'markets', route: 'GET /v0/positions/owners' },
      query: () => `{ wallet(address: "${wallet}") { totalValueUsd } }`,
      aborted: 1,
    },
    {
      name: 'wallet value history (valueHistory)',
      target: { service: 'markets', route: 'GET /v0/positions/history' },
      query: () => `{ wallet(address: "${wallet}") { valueHistory(from: "${FROM}", to: "${TO}") { valueUsd } } }`,
      aborted: 1,
    },
    {
      name: 'market APY history (apyHistory)',
      target: { service: 'markets', route: 'GET /v0/markets/history' },
      query: () => `{ market(id: "${marketId}") { apyHistory(from: "${FROM}", to: "${TO}") { depositApy } } }`,
      aborted: 1,
    },
    {
      name: 'asset price history (priceHistory)',
      target: { service: 'assets', route: 'GET /v0/assets/:id/history' },
      query: () => `{ asset(id: "${SOL}") { priceHistory(from: "${FROM}", to: "${TO}") { totalCount } } }`,
      aborted: 1,
    },
    { name: 'alerts identity', target: { service: 'alerts', route: 'GET /v2/auth' }, query: () => '{ viewer { walletAddress } }', aborted: 1, subscriber: true },
    { name: 'alerts channels', target: { service: 'alerts', route: 'GET /v2/channels' }, query: () => '{ viewer { channels { id } } }', aborted: 1, subscriber: true },
    { name: 'alerts apps', target: { service: 'alerts', route: 'GET /v2/apps' }, query: () => '{ viewer { apps { appId } } }', aborted: 1, subscriber: true },
    {
      name: 'alerts inbox summary',
      target: { service: 'alerts', route: 'GET /v2/history/summary' },
      query: () => '{ viewer { unreadCount } }',
      aborted: 1,
      subscriber: true,
    },
    {
      name: 'alerts inbox page',
      target: { service: 'alerts', route: 'GET /v2/history' },
      query: () => '{ viewer { inbox(first: 5) { edges { node { id } } } } }',
      aborted: 1,
      subscriber: true,
    },
    {
      // The page of 5 answers; the count's walk then asks for its own first page of 20.
      name: 'alerts inboxCount walk',
      target: { service: 'alerts', route: 'GET /v2/history' },
      query: () => '{ viewer { inbox(first: 5) { totalCount } } }',
      answered: 1,
      aborted: 1,
      subscriber: true,
    },
  ];

  it.each(cases)('aborts the upstream read of $name at once, as ABORTED, without a retry', async ({ target, query, answered = 0, aborted, subscriber }) => {
    // The fault's draws: 1 (let through) for the first `answered` calls, then 0 (hang).
    let draws = 0;
    h.gw.sim.controls.setRandom(() => (draws++ < answered ? 1 : 0));
    h.gw.sim.controls.setFault(target, { hang: true, rate: 0.5 });
    await disconnectDuring(h, target, query(), answered + aborted, subscriber ? viewer() : undefined);

    // The hanging calls end only through the client's abort: their deadline is a minute away.
    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(answered + aborted));
    const outcomes = callsTo(h, target).map((c) => c.errorCode ?? c.status);
    expect(outcomes).toEqual([...Array<number>(answered).fill(200), ...Array<string>(aborted).fill('ABORTED')]);
    for (const call of callsTo(h, target).slice(answered)) {
      expect(call).toMatchObject({ errorKind: 'UNAVAILABLE', errorCode: 'ABORTED', attempts: 1 });
      expect(call.status).toBeUndefined();
    }
    expect(hits(h, target)).toBe(answered + aborted);
  });
});
