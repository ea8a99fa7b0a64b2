import { beforeAll, describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { richWallet, totalCalls } from './helpers.js';
import { WalletPositions, TYPES, TYPENAME, positionCalls } from '../helpers/wallet-positions.js';

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
