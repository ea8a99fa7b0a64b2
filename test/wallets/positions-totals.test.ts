import { describe, expect, it, vi } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { emptyWallet } from './helpers.js';
import { WalletPositions, POSITIONS_ROUTE, positionCalls, handTotal, address, raw, useRichWalletPositions } from '../helpers/wallet-positions.js';

describe('Wallet.positions', () => {
  const gw = useTestGateway();
  useRichWalletPositions(gw);

  it('totals the value by hand: the sum of amountUsd with borrowed amounts subtracted', async () => {
    expect(raw.some((p) => p.type === 'lending' && p.side === 'borrow' && p.amountUsd > 0)).toBe(true);
    const res: any = await gw.execute(WalletPositions, { address, first: 1 });
    expect(res.errors).toBeUndefined();
    const expected = handTotal(raw);
    expect(res.data.wallet.totalValueUsd).toBeCloseTo(expected, 6);
    const naive = raw.reduce((sum, p) => sum + (p.amountUsd ?? 0), 0);
    expect(res.data.wallet.totalValueUsd).not.toBeCloseTo(naive, 2);
  });

  it('answers totalValueUsd and two filtered connections from one upstream call', async () => {
    const getPositions = vi.spyOn(gw.services.upstream.markets, 'getPositions');
    const res: any = await gw.execute(
      `query($address: String!) {
        wallet(address: $address) {
          totalValueUsd
          lending: positions(type: LENDING) { totalCount }
          settled: positions(status: SETTLED, first: 1) { totalCount edges { node { positionId } } }
        }
      }`,
      { address },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.wallet.totalValueUsd).toBeCloseTo(handTotal(raw), 6);
    expect(res.data.wallet.lending.totalCount).toBe(raw.filter((p) => p.type === 'lending').length);
    expect(res.data.wallet.settled.totalCount).toBe(raw.filter((p) => p.market?.status === 'settled').length);
    expect(positionCalls(gw)).toBe(1);
    // Unfiltered: the gateway filters, so the one call carries neither type nor market status (only the request's signal).
    expect(getPositions).toHaveBeenCalledTimes(1);
    expect(getPositions.mock.calls[0]![0]).toEqual({ walletAddresses: [address], scope: expect.objectContaining({ signal: expect.any(AbortSignal) }) });
  });

  it('gives a wallet without positions an empty connection and a zero value, not null', async () => {
    const empty = emptyWallet(gw);
    const res: any = await gw.execute(WalletPositions, { address: empty, first: 10 });
    expect(res.errors).toBeUndefined();
    expect(res.data.wallet).toMatchObject({
      address: empty,
      totalValueUsd: 0,
      positions: { totalCount: 0, edges: [], pageInfo: { hasNextPage: false, endCursor: null } },
    });
  });

  it('nulls only the fields that need the positions service when it fails, with a code', async () => {
    gw.sim.controls.setFault({ service: 'markets', route: POSITIONS_ROUTE }, { status: 503 });
    const res: any = await gw.execute(WalletPositions, { address });
    expect(res.data.wallet.address).toBe(address);
    expect(res.data.wallet.id).toEqual(expect.any(String));
    expect(res.data.wallet.totalValueUsd).toBeNull();
    expect(res.data.wallet.positions).toBeNull();
    expect(res.errors.length).toBeGreaterThan(0);
    for (const error of res.errors) {
      expect(error.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'markets', retryable: true });
      expect(JSON.stringify(error)).not.toMatch(/127\.0\.0\.1|http:\/\//);
    }
  });

  it('passes a rate limit on as RATE_LIMITED with the delay', async () => {
    gw.sim.controls.setFault({ service: 'markets', route: POSITIONS_ROUTE }, { status: 429, retryAfterSeconds: 7 });
    const res: any = await gw.execute('query($a: String!) { wallet(address: $a) { address totalValueUsd } }', { a: address });
    expect(res.data.wallet).toEqual({ address, totalValueUsd: null });
    expect(res.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: 7 });
  });
});
