import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { operation, startTestGateway, useTestGateway, type TestGateway } from '../helpers/gateway.js';
import { emptyWallet, rawPositions, richWallet, totalCalls, worldPositions } from './helpers.js';

const WalletPositions = operation('WalletPositions');
const POSITIONS_ROUTE = 'GET /v0/positions/owners';
const TYPES = ['YIELD', 'LENDING', 'LOOP', 'PERPETUAL', 'REWARD', 'PREDICTION'] as const;
const STATUSES = ['OPEN', 'CLOSED', 'SETTLED'] as const;
const TYPENAME: Record<string, string> = {
  YIELD: 'YieldPosition',
  LENDING: 'LendingPosition',
  LOOP: 'LoopPosition',
  PERPETUAL: 'PerpetualPosition',
  REWARD: 'RewardPosition',
  PREDICTION: 'PredictionPosition',
};
// USD values follow simulated prices that move with the clock: the gateway and the raw reference
// are read at the same frozen instant so they can be compared exactly.
const NOW = new Date('2026-11-01T12:00:00.000Z');

const positionCalls = (gw: TestGateway) => gw.sim.controls.count('markets', POSITIONS_ROUTE);

/** Net value computed by hand from the raw answer: borrowed amounts subtracted, missing amounts 0. */
function handTotal(raw: any[]): number {
  return raw.reduce((sum, p) => sum + (p.type === 'lending' && p.side === 'borrow' ? -1 : 1) * (p.amountUsd ?? 0), 0);
}

function freezeClock() {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
}

describe('Wallet.positions', () => {
  const gw = useTestGateway();
  let address: string;
  let raw: any[];

  beforeAll(() => {
    address = richWallet(gw);
  });
  beforeEach(async () => {
    freezeClock();
    gw.sim.controls.reset();
    raw = await rawPositions(gw, address);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('pages through every position to the end, in the upstream order, without duplicates, on one upstream call per page', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const before = positionCalls(gw);
      const res: any = await gw.execute(WalletPositions, { address, first: 5, after });
      expect(res.errors).toBeUndefined();
      const connection = res.data.wallet.positions;
      expect(connection.totalCount).toBe(raw.length);
      expect(connection.edges.length).toBeLessThanOrEqual(5);
      seen.push(...connection.edges.map((e: any) => e.node.positionId));
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1).cursor);
      after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
      expect(positionCalls(gw) - before).toBe(1);
      pages += 1;
    } while (after && pages < 50);
    expect(pages).toBe(Math.ceil(raw.length / 5));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(raw.map((p) => p.id));
  });

  it.each(TYPES)('filters by type %s', async (type) => {
    const expected = raw.filter((p) => p.type === type.toLowerCase());
    expect(expected.length).toBeGreaterThan(0);
    const res: any = await gw.execute(WalletPositions, { address, type, first: 100 });
    expect(res.errors).toBeUndefined();
    const connection = res.data.wallet.positions;
    expect(connection.totalCount).toBe(expected.length);
    expect(connection.edges.map((e: any) => e.node.positionId)).toEqual(expected.map((p) => p.id));
    for (const { node } of connection.edges) {
      expect(node.type).toBe(type);
      expect(node.__typename).toBe(TYPENAME[type]);
    }
  });

  it.each(STATUSES)('filters by market status %s', async (status) => {
    const expected = raw.filter((p) => p.market?.status === status.toLowerCase());
    expect(expected.length).toBeGreaterThan(0);
    const res: any = await gw.execute(WalletPositions, { address, status, first: 100 });
    expect(res.errors).toBeUndefined();
    const connection = res.data.wallet.positions;
    expect(connection.totalCount).toBe(expected.length);
    expect(connection.edges.map((e: any) => e.node.positionId)).toEqual(expected.map((p) => p.id));
    for (const { node } of connection.edges) expect(node.market.status).toBe(status);
  });

  it('combines type and status', async () => {
    const expected = raw.filter((p) => p.type === 'prediction' && p.market?.status === 'settled');
    expect(expected.length).toBeGreaterThan(0);
    const res: any = await gw.execute(WalletPositions, { address, type: 'PREDICTION', status: 'SETTLED' });
    expect(res.data.wallet.positions.edges.map((e: any) => e.node.positionId)).toEqual(expected.map((p) => p.id));
    expect(positionCalls(gw)).toBe(1);
  });

  it("serves every kind's own fields as the upstream sent them, the lending LTV as a fraction", async () => {
    const res: any = await gw.execute(WalletPositions, { address, first: 100 });
    expect(res.errors).toBeUndefined();
    const nodes = new Map<string, any>(res.data.wallet.positions.edges.map((e: any) => [e.node.positionId, e.node]));
    expect(nodes.size).toBe(raw.length);
    let lendingWithLtv = 0;
    for (const p of raw) {
      const node = nodes.get(p.id);
      expect(node.amount).toBe(p.amount);
      expect(node.amountUsd).toBe(p.amountUsd ?? null);
      expect(node.websiteUrl).toBe(p.websiteUrl ?? null);
      expect(node.rewards.map((r: any) => [r.amount, r.amountUsd, r.token?.assetId])).toEqual(
        (p.rewards ?? []).map((r: any) => [r.amount, r.amountUsd ?? null, `solana:${r.tokenAddress}`]),
      );
      if (p.market) {
        expect(node.market.marketId).toBe(p.marketId);
        expect(node.market.status).toBe(p.market.status.toUpperCase());
      }
      switch (p.type) {
        case 'lending':
          expect(node.side).toBe(p.side.toUpperCase());
          expect(node.ltv).toBeCloseTo(p.ltv / 100, 12);
          expect(node.liquidationPrice).toBe(p.liquidationPrice ?? null);
          if (p.ltv > 1) lendingWithLtv += 1;
          break;
        case 'loop':
          expect([node.leverage, node.amountTokenA, node.amountTokenB]).toEqual([p.leverage, p.amountTokenA, p.amountTokenB]);
          break;
        case 'reward':
          expect(node.parentPositionId).toBe(p.position?.id ?? null);
          expect(node.token.assetId).toBe(`solana:${p.token.address}`);
          break;
        case 'prediction':
          expect(node.side).toBe(p.side.toUpperCase());
          expect(node.costBasis).toEqual({ averageEntryPrice: p.costBasisAvg, totalCapitalCommitted: p.costBasisTotal });
          expect(node.pnl).toEqual({ total: p.pnl.total, realized: p.pnl.realized, unrealized: p.pnl.unrealized });
          break;
      }
    }
    // Without an LTV above 1 % the division by 100 would go unnoticed.
    expect(lendingWithLtv).toBeGreaterThan(0);
  });

  it('serves perpetual, loop, prediction, lending and reward details beyond the WalletPositions operation', async () => {
    // Several small requests: one query selecting everything would exceed the cost limit.
    const selections = [
      '... on PerpetualPosition { side leverage entryPrice markPrice }',
      '... on LoopPosition { amountTokenAUsd amountTokenBUsd ltv liquidationPrice leverage }',
      '... on PredictionPosition { token { assetId } pnl { unrealizedPct } }',
      '... on LendingPosition { actions { deposit withdraw borrow repay } }',
      '... on RewardPosition { parentPosition { positionId } }',
    ];
    const nodes = new Map<string, any>();
    for (const selection of selections) {
      const res: any = await gw.execute(
        `query($address: String!) {
          wallet(address: $address) { positions(first: 100) { edges { node { positionId owner { address } ${selection} } } } }
        }`,
        { address },
      );
      expect(res.errors).toBeUndefined();
      for (const { node } of res.data.wallet.positions.edges) nodes.set(node.positionId, { ...nodes.get(node.positionId), ...node });
    }
    const ids = new Set(raw.map((p) => p.id));
    for (const p of raw) {
      const node = nodes.get(p.id);
      expect(node.owner.address).toBe(address);
      if (p.type === 'perpetual') {
        expect(node).toMatchObject({ side: p.side.toUpperCase(), leverage: p.leverage, entryPrice: p.entryPrice, markPrice: p.markPrice });
      }
      if (p.type === 'loop') {
        expect(node).toMatchObject({
          amountTokenAUsd: p.amountTokenAUsd,
          amountTokenBUsd: p.amountTokenBUsd,
          ltv: p.ltv,
          liquidationPrice: p.liquidationPrice,
          leverage: p.leverage,
        });
      }
      if (p.type === 'prediction') {
        expect(node.token?.assetId ?? null).toBe(p.token ? `solana:${p.token.address}` : null);
        expect(node.pnl.unrealizedPct).toBe(p.pnl.unrealizedPct ?? null);
      }
      if (p.type === 'lending') {
        expect(node.actions.withdraw).toBe(p.actions?.withdraw?.blinkUrl ?? null);
      }
      if (p.type === 'reward') {
        const parent = p.position?.id;
        expect(node.parentPosition?.positionId ?? null).toBe(parent && ids.has(parent) ? parent : null);
      }
    }
    // One positions call per request, the reward's parent included.
    expect(positionCalls(gw)).toBe(selections.length);
  });

  it('reaches a market the position does not embed through the market loader', async () => {
    const orphan = raw.find((p) => !p.market);
    expect(orphan).toBeDefined();
    const res: any = await gw.execute(WalletPositions, { address, type: 'REWARD', first: 100 });
    expect(res.errors).toBeUndefined();
    const node = res.data.wallet.positions.edges.find((e: any) => e.node.positionId === orphan.id).node;
    expect(node.market?.marketId).toBe(orphan.marketId);
  });

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

describe('node(id:) of wallets and positions', () => {
  const gw = useTestGateway({ resetControls: true });
  let address: string;

  beforeAll(() => {
    address = richWallet(gw);
  });

  const NODE = `query($id: ID!) {
    node(id: $id) {
      __typename
      id
      ... on Wallet { address }
      ... on Position { positionId type owner { address } }
    }
  }`;

  async function positionIds(): Promise<{ id: string; positionId: string; __typename: string }[]> {
    const res: any = await gw.execute(WalletPositions, { address, first: 100 });
    gw.sim.controls.resetCounts();
    return res.data.wallet.positions.edges.map((e: any) => e.node);
  }

  it('finds a position of every kind again by its global id, each lookup on one positions call', async () => {
    const nodes = await positionIds();
    for (const type of TYPES) {
      const wanted = nodes.find((n) => n.__typename === TYPENAME[type])!;
      const res: any = await gw.execute(NODE, { id: wanted.id });
      expect(res.errors).toBeUndefined();
      expect(res.data.node).toEqual({
        __typename: TYPENAME[type],
        id: wanted.id,
        positionId: wanted.positionId,
        type,
        owner: { address },
      });
    }
    expect(positionCalls(gw)).toBe(TYPES.length);
  });

  it('loads many positions of one wallet through nodes(ids:) with a single call', async () => {
    const nodes = await positionIds();
    const res: any = await gw.execute('query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Position { positionId } } }', {
      ids: nodes.map((n) => n.id),
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.nodes.map((n: any) => n.positionId)).toEqual(nodes.map((n) => n.positionId));
    expect(positionCalls(gw)).toBe(1);
  });

  it('finds a wallet by its global id without calling the upstream', async () => {
    const res: any = await gw.execute('query($a: String!) { wallet(address: $a) { id } }', { a: address });
    const id = res.data.wallet.id;
    const found: any = await gw.execute(NODE, { id });
    expect(found.data.node).toEqual({ __typename: 'Wallet', id, address });
    expect(totalCalls(gw)).toBe(0);
  });

  it('answers null for a position id under the wrong type or owner', async () => {
    const [first] = await positionIds();
    const [typename, ...rest] = Buffer.from(first!.id, 'base64').toString('utf8').split(':');
    const other = typename === 'YieldPosition' ? 'LoopPosition' : 'YieldPosition';
    const wrongType = Buffer.from([other, ...rest].join(':')).toString('base64');
    const otherOwner = gw.sim.world.wallets.find((w) => w.address !== address)!.address;
    const wrongOwner = Buffer.from([typename, otherOwner, ...rest.slice(1)].join(':')).toString('base64');
    for (const id of [wrongType, wrongOwner]) {
      const res: any = await gw.execute(NODE, { id });
      expect(res.errors).toBeUndefined();
      expect(res.data.node).toBeNull();
    }
  });
});

describe('wallets(addresses:) and the positions batch size', () => {
  const W = 5;
  const QUERY = `query($addresses: [String!]!) {
    wallets(addresses: $addresses) { address totalValueUsd positions { totalCount } }
  }`;

  async function run(positionsBatchSize: number | undefined, pick: (all: string[]) => string[]) {
    const gw = await startTestGateway(positionsBatchSize ? { config: { positionsBatchSize } } : {});
    try {
      const all = gw.sim.world.wallets.map((w) => w.address).filter((a) => worldPositions(gw, a).length > 0);
      const addresses = pick(all);
      const getPositions = vi.spyOn(gw.services.upstream.markets, 'getPositions');
      const res: any = await gw.execute(QUERY, { addresses });
      const walletsPerCall = getPositions.mock.calls.map(([params]) => [...params.walletAddresses]);
      return { gw, res, calls: positionCalls(gw), walletsPerCall, addresses };
    } finally {
      await gw.close();
    }
  }

  it(`makes one call per wallet at the default batch size of 1 (${W} wallets → ${W} calls)`, async () => {
    const { gw, res, calls, walletsPerCall, addresses } = await run(undefined, (all) => all.slice(0, W));
    expect(res.errors).toBeUndefined();
    expect(calls).toBe(W);
    expect(walletsPerCall.every((list) => list.length === 1)).toBe(true);
    expect(res.data.wallets.map((w: any) => w.address)).toEqual(addresses);
    for (const wallet of res.data.wallets) expect(wallet.positions.totalCount).toBe(worldPositions(gw, wallet.address).length);
  });

  it(`makes one call for all ${W} wallets when the batch size allows, and splits the answer by owner`, async () => {
    const { gw, res, calls, walletsPerCall, addresses } = await run(25, (all) => all.slice(0, W));
    expect(res.errors).toBeUndefined();
    expect(calls).toBe(1);
    expect(walletsPerCall[0]!.sort()).toEqual([...addresses].sort());
    for (const wallet of res.data.wallets) expect(wallet.positions.totalCount).toBe(worldPositions(gw, wallet.address).length);
  });

  it('batches by the configured size (5 wallets at 2 per call → 3 calls)', async () => {
    const { calls, walletsPerCall } = await run(2, (all) => all.slice(0, 5));
    expect(calls).toBe(3);
    expect(walletsPerCall.map((list) => list.length).sort()).toEqual([1, 2, 2]);
  });

  it('removes duplicate addresses before calling', async () => {
    const { res, calls, addresses } = await run(undefined, (all) => [all[0]!, all[1]!, all[0]!]);
    expect(res.data.wallets.map((w: any) => w.address)).toEqual([addresses[0], addresses[1]]);
    expect(calls).toBe(2);
  });
});

describe('asset calls of a positions page', () => {
  const gw = useTestGateway();

  it('costs at most one asset call per distinct market token, and none when repeated', async () => {
    const address = richWallet(gw);
    const query = `query($address: String!) {
      wallet(address: $address) {
        positions(first: 100) {
          edges { node { market {
            ... on LendingMarket { token { symbol } }
            ... on YieldMarket { token { symbol } }
          } } }
        }
      }
    }`;
    const raw = await rawPositions(gw, address);
    // A market the position does not embed is the listed one (the gateway finds it in its index).
    const markets = raw.map((p) => p.market ?? gw.sim.world.marketsById.get(p.marketId));
    const withToken = markets.filter((m) => m?.type === 'lending' || m?.type === 'yield');
    const tokens = new Set(withToken.map((m) => m.token.address));
    // N positions over K distinct tokens, N > K: a per-position asset call would show.
    expect(tokens.size).toBeGreaterThan(1);
    expect(withToken.length).toBeGreaterThan(tokens.size);

    const first: any = await gw.execute(query, { address });
    expect(first.errors).toBeUndefined();
    expect(gw.sim.controls.count('assets')).toBeGreaterThan(0);
    expect(gw.sim.controls.count('assets')).toBeLessThanOrEqual(tokens.size);

    gw.sim.controls.resetCounts();
    const again: any = await gw.execute(query, { address });
    expect(again.data).toEqual(first.data);
    expect(gw.sim.controls.count('assets')).toBe(0);
  });
});

describe('bad input is refused before any upstream call', () => {
  const gw = useTestGateway({ resetControls: true });

  const PAGE = `query($address: String!, $first: Int, $last: Int, $after: String, $before: String) {
    wallet(address: $address) { positions(first: $first, last: $last, after: $after, before: $before) { totalCount } }
  }`;

  async function refused(query: string, variables: Record<string, unknown>, allowed: RegExp) {
    const res: any = await gw.execute(query, variables);
    expect(res.errors, JSON.stringify(res)).toHaveLength(1);
    expect(res.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.errors[0].message).toMatch(allowed);
    expect(totalCalls(gw)).toBe(0);
    return res;
  }

  it.each([
    ['not base58', '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl'],
    ['too short', 'abc'],
    ['too long', '1'.repeat(45)],
    ['an EVM address', '0x52908400098527886E0F7030069857D2E4169EE7'],
    ['with a path', '../../v0/markets?x=1'],
  ])('refuses a wallet address that is %s', async (_what, address) => {
    const res = await refused(WalletPositions, { address }, /Solana address: 32 to 44 base58/);
    expect(res.data.wallet).toBeNull();
  });

  it('refuses a bad address among several, and more than 100 wallets', async () => {
    const good = gw.sim.world.wallets.map((w) => w.address);
    await refused('query($a: [String!]!) { wallets(addresses: $a) { totalValueUsd } }', { a: [good[0], 'nope'] }, /Solana address/);
    await refused('query($a: [String!]!) { wallets(addresses: $a) { totalValueUsd } }', { a: good.slice(0, 101) }, /at most 100/);
  });

  it.each([
    ['first above its maximum', { first: 101 }, /first must be between 0 and 100/],
    ['a negative first', { first: -1 }, /first must be between 0 and 100/],
    ['last above its maximum', { last: 1000 }, /last must be between 0 and 100/],
    ['a malformed after', { after: 'not-a-cursor!' }, /after must be a cursor/],
    ['an after of another shape', { after: Buffer.from('offset:-4').toString('base64url') }, /after must be a cursor/],
    ['a malformed before', { before: 'eyJ4IjoxfQ' }, /before must be a cursor/],
  ])('refuses %s', async (_what, args, allowed) => {
    const address = gw.sim.world.demoWallets[0]!;
    const res = await refused(PAGE, { address, ...args }, allowed);
    expect(res.data.wallet.positions).toBeNull();
  });
});
