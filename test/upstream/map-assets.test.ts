import { describe, expect, it } from 'vitest';
import { assetIdForSolana, isValidAssetId } from '../../src/models/asset-ids.js';
import { mapAsset, mapSearch } from '../../src/upstream/assets/map.js';
import { fixture } from './helpers.js';

const SOL = 'So11111111111111111111111111111111111111112';

describe('assets mapper and ids', () => {
  it('maps an asset with its price', () => {
    expect(mapAsset(fixture('asset.json'))).toEqual({
      assetId: `solana:${SOL}`,
      chain: 'solana',
      address: SOL,
      type: 'TOKEN',
      rawType: 'token',
      name: 'Wrapped SOL',
      symbol: 'SOL',
      decimals: 9,
      imageUrl: 'https://cdn.example.com/sol.png',
      tags: ['l1', 'verified'],
      description: "Solana's native token, wrapped.",
      websiteUrl: 'https://solana.com',
      price: { usd: 152.31, change24h: -0.021, updatedAt: '2025-10-10T12:00:00.000Z' },
      marketCapUsd: 82000000000,
    });
  });

  it('search results: unknown asset types become UNKNOWN with the raw type kept', () => {
    const page = mapSearch(fixture('search.json'));
    expect(page.results.map((r) => [r.assetId, r.type, r.rawType, r.address])).toEqual([
      ['stock:AAPL', 'STOCK', 'stock', null],
      ['base:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'TOKEN', 'token', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
      ['ondo:USDY', 'UNKNOWN', 'yield-note', null],
    ]);
  });

  it('isValidAssetId follows the contract pattern exactly', () => {
    const valid = [
      `solana:${SOL}`,
      'ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      'bitcoin:native',
      'stock:AAPL',
      'base-sepolia:a.b',
      '-:x',
      'a:_',
      `${'a'.repeat(32)}:${'b'.repeat(128)}`,
    ];
    const invalid = [
      '',
      'solana',
      ':abc',
      'solana:',
      'Solana:abc',
      'sol_ana:abc',
      '_:x',
      `${'a'.repeat(33)}:b`,
      `a:${'b'.repeat(129)}`,
      'solana:.abc',
      'solana:a..b',
      'solana:a/b',
      'solana:a b',
      'solana:a:b',
      'solana:a%2F',
      'solana:ä',
    ];
    for (const id of valid) expect(isValidAssetId(id), id).toBe(true);
    for (const id of invalid) expect(isValidAssetId(id), id).toBe(false);
    expect(isValidAssetId(42)).toBe(false);
    expect(assetIdForSolana(SOL)).toBe(`solana:${SOL}`);
  });
});
