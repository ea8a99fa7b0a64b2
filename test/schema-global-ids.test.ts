import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { encodeId } from '../src/schema/sync-global-ids.js';

describe('global ids', () => {
  it("are the relay plugin's encoding of every id, ASCII or not, short or long", () => {
    const raws = ['DbXrWB31ihKXVy3BscKVSiyqrvgQrgQYfDS28LntvsL1:pos.lending.9oEs', 'solana:So11111111111111111111111111111111111111112', 'café', 'naïve ÿ', '日本', '🚀 launch', 'x'.repeat(5000), 'é'.repeat(2000)];
    for (const raw of raws) {
      expect(encodeId('LendingPosition', raw)).toBe(encodeGlobalID('LendingPosition', raw));
      expect(decodeGlobalID(encodeId('LendingPosition', raw))).toEqual({ typename: 'LendingPosition', id: raw });
    }
  });
});
