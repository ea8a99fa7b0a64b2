import { describe, expect, test } from 'vitest';
import { Registry } from 'prom-client';
import { mapMarket } from '../../src/upstream/markets/map-market.js';
import { mapPosition } from '../../src/upstream/markets/map-position.js';
import { ListingParts, sameValue, sharePositionParts } from '../../src/stores/shared-parts.js';
import { createPositionsStore } from '../../src/stores/positions.js';
import { createCopies } from '../../src/stores/assets/copies.js';
import type { LendingMarket, LendingPosition, Market, Position } from '../../src/models/index.js';

const USDC = { address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', symbol: 'USDC', decimals: 6, icon: 'https://cdn.example/usdc.png', name: 'USD Coin' };
const SOL = { address: 'So11111111111111111111111111111111111111112', symbol: 'SOL', decimals: 9, icon: 'https://cdn.example/sol.png', name: 'Solana' };
const PROVIDER = { id: 'kamino', name: 'Kamino', icon: 'https://cdn.example/kamino.png' };

function rawLending(address: string, token = USDC, depositApy = 0.05) {
  return {
    id: `kamino.lend.${address}`,
    type: 'lending',
    productName: 'Kamino Lend',
    provider: { ...PROVIDER },
    websiteUrl: `https://app.example/lend/${address}`,
    additionalData: { marketName: 'Main', pool: { tier: 'A' } },
    actions: { deposit: { blinkUrl: `https://blinks.example/${address}/deposit` }, withdraw: { blinkUrl: `https://blinks.example/${address}/withdraw` } },
    token: { ...token },
    depositApy,
    baseDepositApy: depositApy,
    borrowApy: 0.08,
    baseBorrowApy: 0.08,
    totalDeposit: 1000,
    totalBorrow: 500,
  };
}

function rawPosition(owner: string, market: ReturnType<typeof rawLending>) {
  return {
    id: `pos.lending.${owner}`,
    type: 'lending',
    ownerAddress: owner,
    marketId: market.id,
    amount: 10,
    amountUsd: 10,
    websiteUrl: market.websiteUrl,
    side: 'deposit',
    actions: { deposit: { ...market.actions.deposit }, withdraw: { ...market.actions.withdraw } },
    market: JSON.parse(JSON.stringify(market)),
  };
}

const lending = (raw: unknown) => mapMarket(raw as never) as LendingMarket;
const position = (raw: unknown) => mapPosition(raw as never) as LendingPosition;

describe('equal parts shared by what the stores hold', () => {
  test('sameValue compares mapped data by value, to a bounded depth, and never class instances', () => {
    expect(sameValue({ a: [1, { b: 'x' }], c: null }, { a: [1, { b: 'x' }], c: null })).toBe(true);
    expect(sameValue({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] })).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue([1, 2], { 0: 1, 1: 2 })).toBe(false);
    const deep = (): unknown => ({ a: { b: { c: { d: { e: { f: 1 } } } } } });
    expect(sameValue(deep(), deep())).toBe(false);
    expect(sameValue(new Date(0), new Date(0))).toBe(false);
  });

  test("a listing read hands out one provider and token object per equal record, and keeps a different one's own", () => {
    const parts = new ListingParts();
    const [a, b, c] = [lending(rawLending('A')), lending(rawLending('B')), lending(rawLending('C', { ...USDC, icon: 'https://cdn.example/other.png' }))];
    for (const market of [a, b, c]) parts.share(market);
    expect(b.provider).toBe(a.provider);
    expect(b.token).toBe(a.token);
    expect(c.token).not.toBe(a.token);
    expect(c.token.icon).toBe('https://cdn.example/other.png');
  });

  test("a held position's embedded market takes the index record's equal parts and keeps its own values", () => {
    const indexed = lending(rawLending('A'));
    const raw = rawPosition('W1', rawLending('A', USDC, 0.07));
    const mine = position(raw);
    const unshared = position(raw);
    sharePositionParts(mine, 'W1', indexed);
    // Served the same answers as the position mapped alone.
    expect(mine).toEqual(unshared);
    expect(mine.market).not.toBe(indexed);
    expect(mine.market!.depositApy).toBe(0.07);
    expect(mine.market!.provider).toBe(indexed.provider);
    expect(mine.market!.token).toBe(indexed.token);
    expect(mine.market!.actions).toBe(indexed.actions);
    expect(mine.market!.additionalData).toBe(indexed.additionalData);
    expect(mine.market!.apyAverages).toBe(indexed.apyAverages);
  });

  test('a position whose market the index does not hold keeps its own parts', () => {
    const mine = position(rawPosition('W1', rawLending('A')));
    const before = structuredClone(mine);
    sharePositionParts(mine, 'W1', undefined);
    expect(mine).toEqual(before);
  });
});

describe('the positions store shares only what it holds', () => {
  async function load(ttlMs: number, indexed: Market): Promise<Position> {
    const raw = rawPosition('W1', rawLending('A', SOL));
    const upstream = { markets: { getPositions: () => Promise.resolve([position(raw)]) } };
    const store = createPositionsStore({ upstream: upstream as never, config: { positionsShareTtlMs: ttlMs }, registry: new Registry() }, { indexed: () => indexed });
    const [wallet] = await store.load(['W1']);
    return wallet!.positions[0]!;
  }

  test("a copy held for sharing takes the index's parts; a request's own read (TTL 0) is left as mapped", async () => {
    const indexed = lending(rawLending('A', SOL));
    expect((await load(2000, indexed)).market!.provider).toBe(indexed.provider);
    expect((await load(0, indexed)).market!.provider).not.toBe(indexed.provider);
  });
});

describe('asset copies bounded in count without preallocating it', () => {
  test('past maxEntries the least recently used copy is dropped', async () => {
    const copies = createCopies({ maxEntries: 2, maxSizeBytes: 1024 * 1024, maxStaleMs: 60_000, notFoundTtlMs: 60_000, now: () => 0 });
    const client = { getAsset: (assetId: string) => Promise.resolve({ assetId, tags: [] }) };
    for (const id of ['solana:a', 'solana:b', 'solana:c']) await copies.fetch(id, client as never, 'primary', undefined);
    expect(copies.get('solana:a')).toBeUndefined();
    expect(copies.get('solana:b')?.asset).toMatchObject({ assetId: 'solana:b' });
    expect(copies.get('solana:c')?.asset).toMatchObject({ assetId: 'solana:c' });
  });
});
