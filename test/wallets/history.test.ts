import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { operation, useTestGateway } from '../helpers/gateway.js';
import { emptyWallet, rawHistory, richWallet, sumByTimestamp, totalCalls } from './helpers.js';

const WalletHistory = operation('WalletHistory');
const HISTORY_ROUTE = 'GET /v0/positions/history';
const HOUR = 3_600_000;

const gw = useTestGateway({ resetControls: true });
let address: string;

beforeAll(() => {
  address = richWallet(gw);
});
afterEach(() => vi.restoreAllMocks());

const historyCalls = () => gw.sim.controls.count('markets', HISTORY_ROUTE);

async function expectHandSums(variables: { from: string; to: string; resolution?: string }, upstreamResolution: string) {
  const raw = await rawHistory(gw, { walletAddress: address, startTime: variables.from, endTime: variables.to, resolution: upstreamResolution });
  const expected = sumByTimestamp(raw);
  expect(expected.some((p) => p.valueUsd !== 0)).toBe(true);

  const res: any = await gw.execute(WalletHistory, { address, ...variables });
  expect(res.errors).toBeUndefined();
  const points = res.data.wallet.valueHistory;
  expect(points.map((p: any) => Date.parse(p.timestamp))).toEqual(expected.map((p) => p.at));
  points.forEach((p: any, i: number) => expect(p.valueUsd).toBeCloseTo(expected[i]!.valueUsd, 6));
  expect(historyCalls()).toBe(1);
  return points;
}

describe('Wallet.valueHistory', () => {
  it('sums the upstream snapshots per timestamp (hourly)', async () => {
    const points = await expectHandSums({ from: '2026-10-20T00:00:00.000Z', to: '2026-10-22T00:00:00.000Z', resolution: 'ONE_HOUR' }, '1h');
    expect(points).toHaveLength(49);
  });

  it('defaults to hourly points', async () => {
    const points = await expectHandSums({ from: '2026-10-20T00:00:00.000Z', to: '2026-10-21T00:00:00.000Z' }, '1h');
    expect(Date.parse(points[1].timestamp) - Date.parse(points[0].timestamp)).toBe(HOUR);
  });

  it.each([
    ['ONE_DAY', '1d', '2025-10-08T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['FIVE_MINUTES', '5m', '2026-10-20T00:00:00.000Z', '2026-10-20T06:00:00.000Z'],
    ['ONE_MINUTE', '1m', '2026-10-20T00:00:00.000Z', '2026-10-20T01:00:00.000Z'],
  ])('serves resolution %s', async (resolution, upstream, from, to) => {
    await expectHandSums({ from, to, resolution }, upstream);
  });

  it('accepts a range of exactly 2,000 points', async () => {
    const from = '2026-10-20T00:00:00.000Z';
    const to = new Date(Date.parse(from) + 1999 * 60_000).toISOString();
    const res: any = await gw.execute(WalletHistory, { address, from, to, resolution: 'ONE_MINUTE' });
    expect(res.errors).toBeUndefined();
    expect(res.data.wallet.valueHistory).toHaveLength(2000);
  });

  it('runs up to now when `to` is omitted', async () => {
    const getPositionHistory = vi.spyOn(gw.services.upstream.markets, 'getPositionHistory');
    const from = new Date(Date.now() - 3 * HOUR).toISOString();
    const res: any = await gw.execute(WalletHistory, { address, from });
    expect(res.errors).toBeUndefined();
    const points = res.data.wallet.valueHistory;
    expect(points.length).toBeGreaterThanOrEqual(3);
    expect(Date.parse(points.at(-1).timestamp)).toBeGreaterThan(Date.now() - 2 * HOUR);
    expect(getPositionHistory.mock.calls[0]![0].endTime).toBeUndefined();
  });

  it('makes one call per distinct wallet and range, however often a request asks', async () => {
    const res: any = await gw.execute(
      `query($a: String!, $b: String!) {
        a: wallet(address: $a) {
          h1: valueHistory(from: "2026-10-20T00:00:00Z", to: "2026-10-21T00:00:00Z") { valueUsd }
          h2: valueHistory(from: "2026-10-20T00:00:00Z", to: "2026-10-21T00:00:00Z", resolution: ONE_HOUR) { valueUsd }
          daily: valueHistory(from: "2026-10-20T00:00:00Z", to: "2026-10-21T00:00:00Z", resolution: ONE_DAY) { valueUsd }
        }
        b: wallet(address: $b) { valueHistory(from: "2026-10-20T00:00:00Z", to: "2026-10-21T00:00:00Z") { valueUsd } }
      }`,
      { a: address, b: gw.sim.world.demoWallets.find((w) => w !== address)! },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.a.h1).toEqual(res.data.a.h2);
    expect(historyCalls()).toBe(3);
  });

  it('gives a wallet without positions an empty series', async () => {
    const res: any = await gw.execute(WalletHistory, { address: emptyWallet(gw), from: '2026-10-20T00:00:00Z', to: '2026-10-21T00:00:00Z' });
    expect(res.errors).toBeUndefined();
    expect(res.data.wallet.valueHistory).toEqual([]);
  });

  it('nulls only the series when the upstream fails', async () => {
    gw.sim.controls.setFault({ service: 'markets', route: HISTORY_ROUTE }, { status: 502 });
    const res: any = await gw.execute(WalletHistory, { address, from: '2026-10-20T00:00:00Z', to: '2026-10-21T00:00:00Z' });
    expect(res.data.wallet).toEqual({ address, valueHistory: null });
    expect(res.errors[0].extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'markets' });
  });
});

describe('Wallet.valueHistory refuses bad ranges before any call', () => {
  const future = () => new Date(Date.now() + 24 * HOUR).toISOString();

  it.each([
    ['a start before the data begins', { from: '2025-10-07T23:59:59Z' }, /at or after 2025-10-08T00:00:00.000Z/],
    ['a start after the end', { from: '2026-10-21T00:00:00Z', to: '2026-10-20T00:00:00Z' }, /from must not be after to/],
    ['a start in the future', { get from() { return future(); } }, /must not be in the future/],
    [
      'more than 2,000 points at the resolution',
      { from: '2026-10-20T00:00:00Z', to: '2026-10-22T00:00:00Z', resolution: 'ONE_MINUTE' },
      /2881 points .* at most 2000/,
    ],
    [
      'one point too many',
      { from: '2026-10-20T00:00:00Z', to: new Date(Date.parse('2026-10-20T00:00:00Z') + 2000 * 60_000).toISOString(), resolution: 'ONE_MINUTE' },
      /2001 points/,
    ],
  ])('refuses %s', async (_what, range, allowed) => {
    const res: any = await gw.execute(WalletHistory, { address, ...range });
    expect(res.errors).toHaveLength(1);
    expect(res.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.errors[0].message).toMatch(allowed);
    expect(res.data.wallet).toEqual({ address, valueHistory: null });
    expect(totalCalls(gw)).toBe(0);
  });
});
