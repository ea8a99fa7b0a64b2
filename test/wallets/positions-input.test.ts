import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { totalCalls } from './helpers.js';
import { WalletPositions } from '../helpers/wallet-positions.js';

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
